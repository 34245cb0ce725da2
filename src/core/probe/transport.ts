// The one small interface every way of reaching a target implements (local process, SSH,
// Kubernetes pod exec, node debug pod). Implementations live outside core; core only speaks this.

/** What went wrong reaching or running on a target, as a discriminated union the UI can explain. */
export type TransportFailure =
  | { readonly kind: 'connect'; readonly detail: string }
  | { readonly kind: 'auth'; readonly detail: string }
  | { readonly kind: 'host-key-unknown'; readonly host: string; readonly fingerprint: string; readonly keyType: string }
  | { readonly kind: 'host-key-changed'; readonly host: string; readonly fingerprint: string; readonly expected: string }
  | { readonly kind: 'timeout'; readonly phase: 'connect' | 'command'; readonly ms: number }
  | { readonly kind: 'cancelled' }
  | { readonly kind: 'forbidden'; readonly verb: string; readonly resource: string; readonly detail: string }
  | { readonly kind: 'disconnected'; readonly detail: string }
  | { readonly kind: 'spawn'; readonly detail: string };

export class TransportError extends Error {
  readonly failure: TransportFailure;

  constructor(failure: TransportFailure) {
    super(describeFailure(failure));
    this.failure = failure;
  }
}

export function describeFailure(failure: TransportFailure): string {
  switch (failure.kind) {
    case 'connect':
      return `could not connect: ${failure.detail}`;
    case 'auth':
      return `authentication failed: ${failure.detail}`;
    case 'host-key-unknown':
      return `the host key of ${failure.host} is not known (${failure.keyType} ${failure.fingerprint})`;
    case 'host-key-changed':
      return `the host key of ${failure.host} CHANGED: got ${failure.fingerprint}, known_hosts has ${failure.expected}; refusing to connect (possible man-in-the-middle)`;
    case 'timeout':
      return `timed out after ${failure.ms} ms while ${failure.phase === 'connect' ? 'connecting' : 'running the probe'}`;
    case 'cancelled':
      return 'cancelled';
    case 'forbidden':
      return `forbidden: cannot ${failure.verb} ${failure.resource} (${failure.detail})`;
    case 'disconnected':
      return `the connection dropped: ${failure.detail}`;
    case 'spawn':
      return `could not start the shell: ${failure.detail}`;
  }
}

export interface ExecRequest {
  /** The probe script, written to the remote `sh -s` on standard input: no command line is built from data. */
  readonly script: string;
  readonly timeoutMs: number;
  /** Output beyond this is dropped and the result marked truncated. */
  readonly maxOutputBytes: number;
  readonly signal?: AbortSignal;
  /**
   * When given, standard output is handed over as it arrives, decoded, and not kept (the result's `stdout` is empty),
   * so a consumer that parses as it goes never holds the whole output. Called synchronously; it must not throw.
   */
  readonly onStdout?: (text: string) => void;
}

export interface ExecResult {
  readonly stdout: string;
  readonly stderr: string;
  /** null when the process was killed by a signal or the status is unknown. */
  readonly exitCode: number | null;
  readonly truncated: boolean;
}

export interface Transport {
  /** Where this transport runs commands, for reports: "local", "ssh root@gpu-node-1:22", … */
  readonly target: string;
  /** Runs `sh -s` with the script on stdin. Throws TransportError. */
  run(request: ExecRequest): Promise<ExecResult>;
  close(): Promise<void>;
}
