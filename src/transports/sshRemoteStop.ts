// Stopping what an SSH run started on the target (a cancelled, timed-out or overflowing run).
//
// The command timeout, the output cap and cancellation stop what the script started on the target, then close the
// channel (cancellation also closes the connection). Closing a channel alone does not do it: without a
// pty, sshd neither signals nor kills the session's processes, and a `sleep` would outlive us. So:
// 1. an SSH "signal" request (KILL): OpenSSH >= 7.9 answers it with killpg() on the session, but only
//    for sessions under privilege separation, i.e. not for root logins ("session signalling requires
//    privilege separation");
// 2. then, for every login, the constant REAPER_SCRIPT on a second channel of the same connection: it
//    finds its own sshd connection process in /proc and kills every process of the other sessions of
//    that connection. It runs while the target channel is still open, so the session leader is alive and
//    its session id leads to all its children. All runs of this connection that are still in flight are
//    stopped with it (an inspection runs one at a time).
import type { Client as SshClient, ClientChannel } from 'ssh2';
import { errorMessage } from '../core/errorMessage.ts';
import { REMOTE_COMMAND } from './sshOptions.ts';

/**
 * Sent to `sh -s` on a second channel to stop a cancelled, timed-out or overflowing run (see the header).
 * Constant: it takes no data. Linux /proc only; elsewhere it exits quietly. It walks up from itself to the
 * nearest `sshd` process (the connection's), collects the session ids of that process's other children
 * (each exec'd command is a session leader: sshd calls setsid), and SIGKILLs every process in them.
 */
export const REAPER_SCRIPT = `# gpumem: stop the other sessions of this SSH connection
fields() {
  l=
  { read -r l < "/proc/$1/stat"; } 2>/dev/null || return 1
  set -- \${l##*) }
  f_ppid=$2
  f_sid=$4
  [ -n "$f_sid" ]
}
fields "$$" || exit 0
mysid=$f_sid
p=$$
conn=
n=0
while [ -z "$conn" ] && [ "$n" -lt 16 ]; do
  n=$((n + 1))
  fields "$p" || exit 0
  pp=$f_ppid
  [ "$pp" -gt 1 ] 2>/dev/null || exit 0
  c=
  { read -r c < "/proc/$pp/comm"; } 2>/dev/null
  case $c in sshd*) conn=$pp ;; esac
  p=$pp
done
[ -n "$conn" ] || exit 0
sids=' '
for d in /proc/[0-9]*; do
  fields "\${d#/proc/}" || continue
  [ "$f_ppid" = "$conn" ] || continue
  [ "$f_sid" = "$mysid" ] && continue
  sids="$sids$f_sid "
done
[ "$sids" = ' ' ] && exit 0
for pass in 1 2 3; do
  for d in /proc/[0-9]*; do
    fields "\${d#/proc/}" || continue
    case $sids in *" $f_sid "*) kill -9 "\${d#/proc/}" 2>/dev/null ;; esac
  done
done
exit 0
`;

/**
 * Sends the SSH "signal" request (KILL). ssh2's Channel.signal() refuses once stdin is at EOF (it checks
 * `writable`), but the protocol allows the request until the channel closes, so it goes through the
 * connection's protocol object. OpenSSH honours it for privilege-separated sessions (not root logins).
 */
export function sendKillSignal(channel: ClientChannel): void {
  const internal = channel as unknown as {
    outgoing?: { id?: number; state?: string };
    _client?: { _protocol?: { signal?: (id: number, name: string) => void } };
  };
  try {
    const id = internal.outgoing?.id;
    const state = internal.outgoing?.state;
    const protocol = internal._client?._protocol;
    if (typeof id === 'number' && (state === 'open' || state === 'eof') && typeof protocol?.signal === 'function') {
      protocol.signal(id, 'KILL');
    } else {
      channel.signal('KILL');
    }
  } catch {
    // the channel is already closing
  }
}

export function closeChannel(channel: ClientChannel): void {
  try {
    channel.close();
  } catch {
    // already closed
  }
}

export const REAP_WAIT_MS = 5000;

/** Runs REAPER_SCRIPT on a new channel; resolves when it is done, failed, or after REAP_WAIT_MS. */
export function runReaper(client: SshClient, log: (line: string) => void): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      log('the remote clean-up did not finish in time');
      resolve();
    }, REAP_WAIT_MS);
    const done = (): void => {
      clearTimeout(timer);
      resolve();
    };
    try {
      client.exec(REMOTE_COMMAND, (err, ch) => {
        if (err) {
          log(`could not start the remote clean-up: ${err.message}`);
          done();
          return;
        }
        ch.on('error', () => undefined);
        ch.on('data', () => undefined);
        ch.stderr.on('data', () => undefined);
        ch.on('close', done);
        ch.end(REAPER_SCRIPT, 'utf8');
      });
    } catch (err) {
      log(`could not start the remote clean-up: ${errorMessage(err)}`);
      done();
    }
  });
}
