// `dmesg` in the simulator's pods (the roots of pods created through the API, like gpumem's node debug pod).
//
// Why a stand-in: an exec runs `chroot <pod root> …` on THIS machine, so busybox's real `dmesg` would call
// klogctl() on this machine's kernel and print its ring buffer (the simulator runs as root, with CAP_SYSLOG):
// the CI machine's boot messages instead of the node's, and never the node's OOM kill. The node's kernel is
// the fixture, and its log is the fixture's /var/log/kern.log (rsyslog's copy of the ring buffer). So `dmesg`
// in a pod root is a script that does what the real one does in that pod on that node:
// - The container may not read the kernel log (neither privileged nor granted CAP_SYSLOG; gpumem's debug pod
//   adds only SYS_PTRACE): with kernel.dmesg_restrict=1, the default of the fixture nodes' Ubuntu and Debian
//   kernels (CONFIG_SECURITY_DMESG_RESTRICT=y), klogctl() fails with EPERM and busybox prints
//   `dmesg: klogctl: Operation not permitted` and exits 1 (checked with busybox 1.35 under
//   `setpriv --bounding-set=-syslog`). The node probe then falls back to $R/var/log/kern.log, which is where
//   the fixture's OOM kill is, as it would on the real node.
// - A privileged container, or one that adds SYSLOG (or ALL): the node's ring buffer, i.e. the fixture's
//   kern.log turned back into what the kernel's buffer holds: `[seconds.micros] message`, seconds since the
//   boot (the "Linux version" line, printed at 0), only the last RING_BUFFER_BYTES (log_buf_len).
// Leaving `dmesg` out of the pod root would be less faithful: a busybox image has it, and the probe's
// "missing dmesg (not permitted…)" path would never run.
import type { Container, PodSpec } from './objects.ts';

/** How much of the log the simulated kernel keeps (log_buf_len: CONFIG_LOG_BUF_SHIFT 18 is 256 KiB). */
export const RING_BUFFER_BYTES = 256 * 1024;

export type KernelLogAccess = { readonly kind: 'refused' } | { readonly kind: 'granted'; readonly by: string };

/** Whether the pod's containers may read the kernel log (see the header). */
export function kernelLogAccess(spec: PodSpec): KernelLogAccess {
  for (const container of [...(spec.initContainers ?? []), ...spec.containers] as Container[]) {
    const context = container['securityContext'] as { privileged?: unknown; capabilities?: { add?: unknown } } | undefined;
    if (context?.privileged === true) return { kind: 'granted', by: `container ${container.name} is privileged` };
    const added = Array.isArray(context?.capabilities?.add) ? (context.capabilities.add as unknown[]) : [];
    const grant = added.find((cap) => typeof cap === 'string' && ['SYSLOG', 'CAP_SYSLOG', 'ALL'].includes(cap.toUpperCase()));
    if (grant !== undefined) return { kind: 'granted', by: `container ${container.name} adds ${String(grant)}` };
  }
  return { kind: 'refused' };
}

const SYSLOG_LINE = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2}) \S+ kernel: ?(.*)$/;

/** Microseconds since the epoch of an RFC 3339 timestamp with up to nanoseconds. */
function micros(seconds: string, fraction: string | undefined, zone: string): number | undefined {
  const ms = Date.parse(`${seconds}${zone}`);
  if (Number.isNaN(ms)) return undefined;
  return ms * 1000 + Number((fraction ?? '').padEnd(6, '0').slice(0, 6));
}

/**
 * The ring buffer behind an rsyslog kern.log: each `<RFC 3339 time> <host> kernel: <message>` line becomes
 * `[ssssss.uuuuuu] <message>` with the time since the first line (the boot); other lines keep the previous
 * line's time. Only the last `limit` bytes are kept, whole lines.
 */
export function ringBufferOf(kernLog: string, limit = RING_BUFFER_BYTES): string {
  const out: string[] = [];
  let boot: number | undefined;
  let last = 0;
  for (const line of kernLog.split('\n')) {
    if (line === '') continue;
    const match = SYSLOG_LINE.exec(line);
    let message = line;
    if (match) {
      const at = micros(match[1] as string, match[2], match[3] as string);
      if (at !== undefined) {
        boot ??= at;
        last = Math.max(0, at - boot);
      }
      message = match[4] as string;
    }
    out.push(`[${String(Math.floor(last / 1e6)).padStart(5, ' ')}.${String(last % 1e6).padStart(6, '0')}] ${message}`);
  }
  let bytes = 0;
  let first = out.length;
  while (first > 0 && bytes + Buffer.byteLength(out[first - 1] as string) + 1 <= limit) {
    bytes += Buffer.byteLength(out[first - 1] as string) + 1;
    first--;
  }
  return out
    .slice(first)
    .map((line) => `${line}\n`)
    .join('');
}

const END = 'GPUMEM_SIMULATED_RING_BUFFER_END';

/** The `/bin/dmesg` script of a pod root: refused as busybox is, or the node's ring buffer. */
export function dmesgScript(access: KernelLogAccess, nodeKernLog: string): string {
  const head = "#!/bin/sh\n# gpumem API simulator: dmesg as the node's kernel answers this pod (test/simulator/dmesg.ts).\n";
  if (access.kind === 'refused') return `${head}echo 'dmesg: klogctl: Operation not permitted' >&2\nexit 1\n`;
  const buffer = ringBufferOf(nodeKernLog)
    .split('\n')
    .filter((line) => line !== END)
    .join('\n');
  return `${head}# Readable: ${access.by}.\ncat <<'${END}'\n${buffer}${buffer.endsWith('\n') || buffer === '' ? '' : '\n'}${END}\n`;
}
