// The amdgpu line printed when a process's GPU VM is torn down while it still held GPU memory:
//
//   amdgpu 0000:03:00.0: amdgpu: VM memory stats for proc firefox(2852) task firefox:cs0(2770) is non-zero when fini
//
// Source: drivers/gpu/drm/amd/amdgpu/amdgpu_vm.c, amdgpu_vm_fini(), a dev_warn with the format
// "VM memory stats for proc %s(%d) task %s(%d) is non-zero when fini" (the arguments are the process
// name, the thread pid, the thread comm and the tgid since the 2025 patch "drm: amdgpu: Use struct
// drm_wedge_task_info inside of struct amdgpu_task_info"). Either pid may be the OOM victim's, so both
// are kept. Names may hold spaces and brackets (`RDD Process(12593)`), so the line is cut at the last
// `(` of each half, never with a backtracking pattern.

export interface AmdgpuVmFiniLine {
  /** `proc %s`: the process (thread-group leader) name; empty when the kernel had none (`(0)`). */
  readonly procName: string;
  readonly procPid: number;
  /** `task %s`: the thread name. */
  readonly taskName: string;
  readonly taskPid: number;
  /** The PCI device when the line names it. */
  readonly device?: string;
  /** 1-based line number in the parsed text. */
  readonly line: number;
  /** The line exactly as it appears in the log. */
  readonly text: string;
}

const HEAD = 'VM memory stats for proc ';
const TAIL = ' is non-zero when fini';
const SPLIT = ') task ';
const MAX_PID = 4194304; // PID_MAX_LIMIT on 64-bit kernels

/** `name(123)` → name and pid; undefined when the pid is not a kernel pid. */
function nameAndPid(part: string): { name: string; pid: number } | undefined {
  if (!part.endsWith(')')) return undefined;
  const open = part.lastIndexOf('(');
  if (open < 0) return undefined;
  const digits = part.slice(open + 1, -1);
  if (digits.length === 0 || digits.length > 7) return undefined;
  for (let i = 0; i < digits.length; i++) {
    const code = digits.charCodeAt(i);
    if (code < 48 || code > 57) return undefined;
  }
  const pid = Number(digits);
  if (pid > MAX_PID) return undefined;
  return { name: part.slice(0, open), pid };
}

/** Parse one kernel message (the text after the log's own prefix). Linear in the message length. */
export function parseAmdgpuVmFini(message: string, line: number, text: string, device?: string): AmdgpuVmFiniLine | undefined {
  const at = message.indexOf(HEAD);
  if (at < 0) return undefined;
  let end = message.length;
  while (end > 0 && (message.charCodeAt(end - 1) === 32 || message.charCodeAt(end - 1) === 9)) end--;
  if (!message.startsWith(TAIL, end - TAIL.length) || end - TAIL.length < at + HEAD.length) return undefined;
  const body = message.slice(at + HEAD.length, end - TAIL.length);
  const split = body.lastIndexOf(SPLIT);
  if (split < 0) return undefined;
  const proc = nameAndPid(body.slice(0, split + 1));
  const task = nameAndPid(body.slice(split + SPLIT.length));
  if (!proc || !task) return undefined;
  return {
    procName: proc.name,
    procPid: proc.pid,
    taskName: task.name,
    taskPid: task.pid,
    ...(device !== undefined ? { device } : {}),
    line,
    text,
  };
}

/** The pids a fini line names (the thread and the thread group), without the kernel's placeholder 0. */
export function finiPids(fini: AmdgpuVmFiniLine): number[] {
  const pids: number[] = [];
  if (fini.procPid > 0) pids.push(fini.procPid);
  if (fini.taskPid > 0 && fini.taskPid !== fini.procPid) pids.push(fini.taskPid);
  return pids;
}
