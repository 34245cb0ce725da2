// Where the environment that carries HAMi's limit says "no limit": a login session that does not inherit
// the container's env (HAMi#1112), CUDA_DISABLE_CONTROL in the processes (the device plugin then skips the
// preload mount), or a limit that parses to 0, which HAMi-core treats as none.
import { pushAll } from '../../arrays.ts';
import type { Check, HamiClusterFacts } from './hamiCheck.ts';
import { LIMIT_VAR, counted, fail, isTrue, limitVars, nameList, parseHamiLimit, pass, processLines, unknown } from './hamiFacts.ts';
import type { Facts } from './hamiFacts.ts';

const NOT_CAPTURED = 'Run the container probe in the workload container.';

function mib(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}

export function checkLoginSessions(facts: Facts): Check {
  const common = {
    id: 'bypass.login-session',
    subject: 'the limit env of each CUDA process',
    group: 'bypass' as const,
    command: "tr '\\0' '\\n' < /proc/<pid>/environ | grep CUDA_DEVICE_MEMORY_LIMIT",
    impact: 'bypass' as const,
  };
  if (!facts.processes)
    return unknown(
      { ...common, evidence: [] },
      'the processes were not captured',
      'without /proc/<pid>/environ no process shows its limit env',
      NOT_CAPTURED,
    );
  const pid1Limits = limitVars(facts.pid1Env);
  const evidence = pid1Limits.map(([key, value]) => `/proc/1: ${key}=${value}`);
  if (pid1Limits.length === 0)
    return unknown(
      { ...common, evidence },
      'PID 1 has no limit env to compare with',
      'its environ has no CUDA_DEVICE_MEMORY_LIMIT*, or could not be read (see step 2)',
      'Run the probe as root in the container.',
    );
  const readable = facts.gpuProcs.filter((process) => process.environReadable);
  const lacking = readable.filter((process) => limitVars(process.env).length === 0);
  const all = [
    ...evidence,
    ...facts.gpuProcs.flatMap((process) =>
      processLines(
        process,
        (line) =>
          line.startsWith('comm=') ||
          line.startsWith('cmdline=') ||
          LIMIT_VAR.test(line.split('=')[0] ?? '') ||
          line === '@environ-unreadable',
      ),
    ),
  ];
  if (lacking.length > 0) {
    return fail(
      { ...common, evidence: all },
      `${nameList(lacking.map((process) => process.comm))} ${lacking.length === 1 ? 'runs' : 'run'} without the limit env PID 1 has: not limited`,
      `${lacking.map((process) => `pid ${process.pid} (${process.comm})`).join(', ')} ${lacking.length === 1 ? 'lacks' : 'lack'} CUDA_DEVICE_MEMORY_LIMIT*: started from a login shell, su -, cron or ssh session, which does not inherit the container's env`,
      "Start GPU work from the container's own environment (kubectl exec inherits it; ssh, su - and cron do not), or export the CUDA_DEVICE_* variables from /proc/1/environ in the session (HAMi#1112).",
    );
  }
  if (facts.gpuProcs.length === 0)
    return unknown(
      { ...common, evidence: all },
      'no CUDA process to examine',
      'only a process that uses the GPU matters here',
      'Run the probe while the workload is using the GPU.',
    );
  if (readable.length < facts.gpuProcs.length)
    return unknown(
      { ...common, evidence: all },
      `the environ of ${facts.gpuProcs.length - readable.length} of ${counted(facts.gpuProcs.length, 'CUDA process', 'CUDA processes')} could not be read`,
      `the ${counted(readable.length, 'readable one carries', 'readable ones carry')} the limit env`,
      'Run the probe as root in the container.',
    );
  return pass(
    { ...common, evidence: all },
    readable.length === 1 ? 'the CUDA process carries the limit env' : `all ${readable.length} CUDA processes carry the limit env`,
    'each has the CUDA_DEVICE_MEMORY_LIMIT* variables PID 1 has',
  );
}

export function checkDisableControlPerProcess(facts: Facts): Check {
  const common = {
    id: 'bypass.disable-control',
    subject: 'CUDA_DISABLE_CONTROL in the process environments',
    group: 'bypass' as const,
    command: "tr '\\0' '\\n' < /proc/<pid>/environ | grep CUDA_DISABLE_CONTROL",
    impact: 'bypass' as const,
  };
  if (!facts.processes)
    return unknown(
      { ...common, evidence: [] },
      'the processes were not captured',
      'without /proc/<pid>/environ no process shows CUDA_DISABLE_CONTROL',
      NOT_CAPTURED,
    );
  const readable = facts.processes.filter((process) => process.environReadable);
  const evidence = facts.processes.flatMap((process) => processLines(process, (line) => line.startsWith('CUDA_DISABLE_CONTROL=')));
  const set = facts.processes.filter((process) => isTrue(process.env['CUDA_DISABLE_CONTROL']));
  if (set.length > 0) {
    const values = [...new Set(set.map((process) => process.env['CUDA_DISABLE_CONTROL'] ?? ''))];
    return fail(
      { ...common, evidence },
      `${values.length === 1 ? `CUDA_DISABLE_CONTROL=${values[0] ?? ''}` : 'CUDA_DISABLE_CONTROL is true'} in ${counted(set.length, 'process', 'processes')}: HAMi's limits are off`,
      `${set.map((process) => `pid ${process.pid} (${process.comm})`).join(', ')}: the pod was created with it, so the device plugin skipped the preload mount`,
      'Remove CUDA_DISABLE_CONTROL from the pod spec and recreate the pod (HAMi-core itself ignores the variable; the device plugin reads it at Allocate).',
      // The checklist's step 1 (hami.disable-control) reads the same variable from the container's env, PID 1 and the pod spec.
      ['hami.disable-control'],
    );
  }
  if (readable.length === 0)
    return unknown(
      { ...common, evidence },
      'no process environ could be read',
      `none of the ${counted(facts.processes.length, 'process', 'processes')} let the probe read /proc/<pid>/environ`,
      'Run the probe as root in the container.',
    );
  return pass(
    { ...common, evidence },
    'CUDA_DISABLE_CONTROL is true in no process',
    `checked ${counted(readable.length, 'readable process environment', 'readable process environments')}`,
  );
}

export function checkLimitZero(facts: Facts, cluster: HamiClusterFacts | undefined): Check {
  const common = {
    id: 'bypass.limit-zero',
    subject: 'the memory limit values',
    group: 'bypass' as const,
    command: "tr '\\0' '\\n' < /proc/<pid>/environ | grep CUDA_DEVICE_MEMORY_LIMIT",
    impact: 'bypass' as const,
  };
  const found: { where: string; key: string; value: string }[] = [];
  const add = (where: string, env: Readonly<Record<string, string>> | undefined) => {
    for (const [key, value] of limitVars(env)) found.push({ where, key, value });
  };
  add('env', facts.container?.env);
  add('/proc/1', facts.pid1Env);
  for (const process of facts.gpuProcs) if (process.pid !== 1 && process.environReadable) add(`/proc/${process.pid}`, process.env);
  add('pod spec env', cluster?.podEnv);
  const evidence = found.map((item) => `${item.where}: ${item.key}=${item.value}`);
  const invalid = facts.logLines.filter((line) => line.kind === 'invalid-limit');
  pushAll(
    evidence,
    invalid.map((line) => `${line.where}: ${line.line}`),
  );
  const zero = found.filter((item) => parseHamiLimit(item.value) === 0);
  if (zero.length > 0 || invalid.length > 0) {
    const names = [
      ...new Set([
        ...zero.map((item) => `${item.key}=${item.value}`),
        ...invalid.map((line) => `${line.details.variable ?? '?'}=${line.details.value ?? ''}`),
      ]),
    ];
    return fail(
      { ...common, evidence },
      `${nameList(names)} ${names.length === 1 ? 'parses' : 'parse'} to 0: HAMi-core enforces no memory limit`,
      'HAMi-core reads a limit of 0 as "no limit" and logs "invalid device memory limit"',
      'Request a non-zero nvidia.com/gpumem (HAMi writes "<MiB>m"); a value that parses to 0 — "0", "0m", text — disables the memory limit.',
    );
  }
  if (found.length === 0)
    return unknown(
      { ...common, evidence },
      'no CUDA_DEVICE_MEMORY_LIMIT* value to check',
      'neither the env, the processes nor the pod spec carries one (see step 2)',
      'See step 2, the limit variables.',
    );
  const values = [...new Set(found.map((item) => `${item.key}=${item.value} (${mib(parseHamiLimit(item.value))})`))];
  return pass({ ...common, evidence }, 'every memory limit is non-zero', nameList(values, 4));
}
