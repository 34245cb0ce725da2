// Process groups: every child is started detached (its own group, so a Ctrl-C in the terminal does
// not reach it directly) and killed as a group: by its owner, or at the latest when this process
// exits. A process that can be stopped by a signal should call exitOnSignals() so that 'exit' runs.
const liveGroups = new Set();
let exitHookInstalled = false;

export function killGroup(pid, signal) {
  if (!pid) return;
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

/**
 * SIGINT/SIGTERM/SIGHUP: run `cleanup` (bounded by 10 s), then exit with 128 + signal number;
 * the 'exit' hook then kills any process group still alive.
 */
export function exitOnSignals(cleanup = async () => {}) {
  const numbers = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 };
  let exiting = false;
  for (const signal of Object.keys(numbers)) {
    process.on(signal, () => {
      if (exiting) return;
      exiting = true;
      const timer = setTimeout(() => process.exit(128 + numbers[signal]), 10_000);
      Promise.resolve()
        .then(cleanup)
        .catch(() => undefined)
        .finally(() => {
          clearTimeout(timer);
          process.exit(128 + numbers[signal]);
        });
    });
  }
}

export function trackProcessGroup(child) {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', () => {
      for (const pid of liveGroups) killGroup(pid, 'SIGKILL');
    });
  }
  if (child.pid) liveGroups.add(child.pid);
  const untrack = () => liveGroups.delete(child.pid);
  child.once('exit', untrack);
  return untrack;
}
