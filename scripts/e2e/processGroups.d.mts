// Types of processGroups.mjs for the TypeScript test harness.
import type { ChildProcess } from 'node:child_process';

export declare function killGroup(pid: number | undefined, signal: NodeJS.Signals): void;
export declare function exitOnSignals(cleanup?: () => Promise<void>): void;
/** Kills the child's group when this process exits; returns the function that stops tracking it. */
export declare function trackProcessGroup(child: ChildProcess): () => void;
