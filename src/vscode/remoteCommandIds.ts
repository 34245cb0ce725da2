// The commands whose code is in dist/remote.js. The extension registers these ids at activation (src/extension.ts)
// and loads the bundle on the first call; src/remote.ts answers them with one table of type RemoteCommandHandlers,
// so a command listed here without a handler, or a handler for a command not listed, does not compile.
import { COMMANDS } from './commandIds.ts';
import { CLUSTER_COMMANDS } from './clusters/commandIds.ts';

export const REMOTE_COMMANDS = [...Object.values(CLUSTER_COMMANDS), COMMANDS.revealPod, COMMANDS.inspectSshHost] as const;

export type RemoteCommandId = (typeof REMOTE_COMMANDS)[number];

export type RemoteCommandHandlers = { readonly [Id in RemoteCommandId]: (arg?: unknown) => unknown };
