// Types for code-server.mjs (plain JavaScript so that `npm start` runs before the pinned Node exists).
export declare const CODE_SERVER_VERSION: string;
export declare const NODE_VERSION: string;
export declare const BUILD_PACKAGES: string[];
export declare const CHROMIUM_PATH: string;
export declare const REPO_ROOT: string;

export interface CodeServerInstall {
  /** .cache/code-server-<version>/ */
  dir: string;
  /** the cached Node 24 binary */
  node: string;
  /** code-server's out/node/entry.js */
  entry: string;
  /** true when this call installed it */
  installedNow: boolean;
  /** how long the install took when installedNow */
  seconds: number;
}

export interface RunningCodeServer {
  /** e.g. http://127.0.0.1:41234/ */
  url: string;
  port: number;
  /** the process group id */
  pid: number;
  logFile: string;
  output(): string;
  /** SIGTERM to the process group, SIGKILL after 5 s; idempotent */
  stop(): Promise<void>;
  exited: Promise<{ code: number | null; signal: string | null }>;
}

export interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs: number;
  logFile?: string;
  echo?: boolean;
}

export declare function codeServerCacheDir(root?: string): string;
export declare function cleanEnv(extra?: Record<string, string>): NodeJS.ProcessEnv;
export declare function run(file: string, args: string[], options: RunOptions): Promise<string>;
export declare function missingDebianPackages(names: string[]): Promise<string[]>;
export declare function ensureDebianPackages(which: 'build' | 'browser' | 'all', log?: (line: string) => void): Promise<void>;
export declare function cachedCodeServer(root?: string): CodeServerInstall | undefined;
export declare function ensureCodeServer(options?: { root?: string; log?: (line: string) => void }): Promise<CodeServerInstall>;
export declare function buildVsix(options?: { root?: string; logFile?: string; timeoutMs?: number; echo?: boolean }): Promise<string>;
export declare function installExtension(
  cs: CodeServerInstall,
  options: { vsix: string; extensionsDir: string; userDataDir: string; logFile?: string; timeoutMs?: number },
): Promise<string>;
export declare function freePort(host?: string): Promise<number>;
export declare function startCodeServer(
  cs: CodeServerInstall,
  options: {
    folder?: string;
    port?: number;
    userDataDir: string;
    extensionsDir: string;
    trustWorkspace?: boolean;
    logFile: string;
    timeoutMs?: number;
    extraArgs?: string[];
    echo?: boolean;
    /** extra environment variables for code-server and its extension host, e.g. HOME */
    env?: Record<string, string>;
  },
): Promise<RunningCodeServer>;
export declare function workbenchUrl(server: RunningCodeServer, folder: string): string;
export declare function assertChromium(): string;
export declare const QUIET_SETTINGS: Record<string, unknown>;
export declare function writeUserSettings(userDataDir: string, settings?: Record<string, unknown>): Promise<void>;
