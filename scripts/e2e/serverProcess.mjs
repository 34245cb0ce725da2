// A local server run as a child for the tests and `npm start` (code-server, the Kubernetes API simulator):
// started detached in its own process group, its output logged to a file, ready once it prints its
// "listening on" line, stopped with SIGTERM and then SIGKILL for whatever is left of its group.
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { killGroup, trackProcessGroup } from './processGroups.mjs';

/**
 * @typedef {object} ServerProcessOptions
 * @property {string} label             names the server in the log and in errors, e.g. "code-server"
 * @property {string} command
 * @property {string[]} args
 * @property {string} cwd
 * @property {NodeJS.ProcessEnv} env
 * @property {string} logFile
 * @property {RegExp} listening         matched against the output; its first group is the address
 * @property {number} timeoutMs         to print the listening line
 * @property {number} graceMs           between SIGTERM and SIGKILL
 * @property {'group'|'leader'} [terminate]  who gets the SIGTERM: the whole group (default) or only the server,
 *   for a server that stops its own children before it exits
 * @property {boolean} [echo]           also write the output to this process's stdout
 *
 * @typedef {object} ServerProcess
 * @property {string} address           the listening line's first group
 * @property {number} pid
 * @property {() => string} output
 * @property {() => Promise<void>} stop  idempotent
 * @property {Promise<{code: number|null, signal: string|null}>} exited
 */

/** @param {ServerProcessOptions} options @returns {Promise<ServerProcess>} */
export async function startServerProcess(options) {
  const log = createWriteStream(options.logFile, { flags: 'w' });
  log.write(`$ ${[options.command, ...options.args].map((a) => JSON.stringify(a)).join(' ')}\n`);
  const child = spawn(options.command, options.args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  trackProcessGroup(child);
  let output = '';
  const exited = new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      log.write(`\n[${options.label}] exited (code ${code}, signal ${signal})\n`);
      resolve({ code, signal });
    });
  });
  const onData = (chunk) => {
    const text = chunk.toString();
    output += text;
    log.write(text);
    if (options.echo) process.stdout.write(text);
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);

  let stopped;
  const stop = () => {
    stopped ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        if (options.terminate === 'leader') {
          try {
            process.kill(child.pid, 'SIGTERM');
          } catch {
            // already gone
          }
        } else killGroup(child.pid, 'SIGTERM');
        const timer = setTimeout(() => killGroup(child.pid, 'SIGKILL'), options.graceMs);
        await exited;
        clearTimeout(timer);
      }
      killGroup(child.pid, 'SIGKILL'); // whatever its children left behind in the group
      await new Promise((resolve) => log.end(resolve));
    })();
    return stopped;
  };

  try {
    const address = await new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${options.label} did not print its listening line within ${options.timeoutMs / 1000} s`)),
        options.timeoutMs,
      );
      const check = () => {
        const match = options.listening.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      };
      child.stdout.on('data', check);
      child.stderr.on('data', check);
      child.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      exited.then(({ code, signal }) => {
        clearTimeout(timer);
        reject(new Error(`${options.label} exited before listening (code ${code}, signal ${signal})`));
      });
    });
    return { address, pid: child.pid ?? 0, output: () => output, stop, exited };
  } catch (error) {
    await stop();
    throw withLogTail(error, options.logFile, output);
  }
}

/** The error with the log file named and the output's last lines, for a server that failed. */
export function withLogTail(error, logFile, output) {
  const tail = output.trim().split('\n').slice(-20).join('\n');
  return new Error(`${error instanceof Error ? error.message : String(error)} (log: ${logFile})${tail ? `\n${tail}` : ''}`);
}
