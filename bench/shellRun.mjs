// Running scripts through a transport for the benches: a failed or truncated run is an error, not a figure.
import { spawn } from 'node:child_process';

const RUN_TIMEOUT_MS = 600_000;
const MAX_OUTPUT = 64 * 1024 * 1024;

/** Runs `file` with `args` (no shell), resolving when it exits 0, rejecting with its stderr otherwise. */
export function spawnWait(file, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`${file} exited ${code}: ${stderr.trim()}`))));
  });
}

/** Runs `script` through `transport` (10 min, 64 MiB of output at most); a non-zero exit or a cut output throws. */
export async function runScript(transport, script) {
  const result = await transport.run({ script, timeoutMs: RUN_TIMEOUT_MS, maxOutputBytes: MAX_OUTPUT });
  if (result.exitCode !== 0 || result.truncated) {
    throw new Error(`${transport.target}: exit ${result.exitCode}${result.truncated ? ', truncated' : ''}: ${result.stderr.slice(0, 300)}`);
  }
  return result;
}
