// The agent bench's cycle cost (bench/agentCycle.mjs) in the process bench/agent.mjs starts for it: its result as
// JSON on stdout, with the capture and the pods the memory run replays. An error exits non-zero with it on stderr.
import { benchCycle } from './agentCycle.mjs';

process.stdout.write(JSON.stringify(await benchCycle()));
