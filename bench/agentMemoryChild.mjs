// The memory run's child process (bench/agent.mjs, benchMemory), bundled by esbuild before it runs.
import { memoryChild } from './agentReplay.mjs';

await memoryChild();
