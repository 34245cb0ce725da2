// The controlled over-quota test's program: a small Python ctypes script run in the tenant's container through
// its own libcuda.so.1 (issue #11, "The controlled over-quota test"; docs/hami-test.md).
//
// How it is run, and why this way:
// - The remote command is the constant argv `python3 -I -c <BOOTSTRAP> <bytes> <seconds>`: the two numbers are
//   argv entries, never text in a shell or in the program. `-I` (isolated mode) ignores PYTHON* variables and
//   the user's site directory, so the tenant's environment cannot swap the program.
// - The program itself (HAMI_TEST_SCRIPT) goes to stdin, followed by HAMI_TEST_END. The bootstrap reads lines
//   up to that line (at most HAMI_TEST_MAX_LINES), then runs them. `python3 -` would wait for the end of stdin,
//   which the v4 exec protocol cannot send without closing the whole socket (src/kube/podExecTransport.ts).
// - Exec over the API cannot kill what it started (closing the socket leaves the process running), so the
//   program bounds itself: `signal.alarm(seconds)` with SIGALRM's default action ends the process even inside
//   a CUDA call that never returns. Process exit releases any device memory the driver still holds.
// - The calls are the CUDA driver API's (docs.nvidia.com/cuda/cuda-driver-api): cuInit, cuDeviceGet,
//   cuCtxCreate_v2, cuMemAlloc_v2 and, at once on success, cuMemFree_v2. Device 0 is the container's first
//   visible GPU, the one CUDA_DEVICE_MEMORY_LIMIT_0 limits (HAMi-core README, "Usage").
// - Output: exactly one line `@gpumem-hami-test v1 key=value …` (result.ts parses it), values from a fixed
//   alphabet ([a-z0-9-]); evidence about the container is booleans, never its text.
import { CUDA_ERROR_OUT_OF_MEMORY } from './cudaErrors.ts';
const MiB = 1024 * 1024;

export const HAMI_TEST_MARKER = '@gpumem-hami-test';
export const HAMI_TEST_VERSION = 1;
/** The line after the program on stdin; the bootstrap stops reading there. */
export const HAMI_TEST_END = '# gpumem-hami-test-end';
export const HAMI_TEST_MAX_LINES = 200;
/** What the test tries beyond the quota, in one allocation (issue #11). */
export const HAMI_TEST_MARGIN_MIB = 64;
/** The whole test, from the exec to the result (issue #11: "Bounded time (30 s)"). */
export const HAMI_TEST_TIMEOUT_MS = 30_000;
/** The program's own deadline: it ends itself before the client gives up, so it never outlives the test. */
export const HAMI_TEST_SELF_DEADLINE_S = 25;
export const HAMI_TEST_MAX_OUTPUT_BYTES = 64 * 1024;

export const HAMI_TEST_BOOTSTRAP = [
  'import sys',
  'lines = []',
  'for line in sys.stdin:',
  `    if line.rstrip("\\r\\n") == ${JSON.stringify(HAMI_TEST_END)} or len(lines) >= ${HAMI_TEST_MAX_LINES}:`,
  '        break',
  '    lines.append(line)',
  'exec(compile("".join(lines), "gpumem-hami-test", "exec"))',
].join('\n');

export const HAMI_TEST_SCRIPT = `# gpumem HAMi enforcement test (docs/hami-test.md): one allocation of argv[1] bytes on CUDA device 0
# through this container's own libcuda.so.1, freed at once; at most argv[2] seconds (SIGALRM ends it).
import os, signal, sys

def result(**fields):
    sys.stdout.write("${HAMI_TEST_MARKER} v${HAMI_TEST_VERSION}" + "".join(" %s=%s" % kv for kv in fields.items()) + "\\n")
    sys.stdout.flush()
    os._exit(0)

args = sys.argv[1:]
if len(args) != 2 or not all(0 < len(a) <= 20 and all(c in "0123456789" for c in a) for a in args):
    result(status="bad-args")
size, seconds = int(args[0]), int(args[1])
signal.alarm(max(1, min(seconds, 300)))

env = os.environ
truthy = ("1", "t", "T", "TRUE", "true", "True")
evidence = {
    "env_limit": "1" if ("CUDA_DEVICE_MEMORY_LIMIT_0" in env or "CUDA_DEVICE_MEMORY_LIMIT" in env) else "0",
    "env_disable": "1" if env.get("CUDA_DISABLE_CONTROL", "").strip() in truthy else "0",
}
try:
    with open("/etc/ld.so.preload", "rb") as preload:
        evidence["preload"] = "vgpu" if b"vgpu" in preload.read(4096) else "other"
except OSError:
    evidence["preload"] = "absent"

try:
    import ctypes
except ImportError:
    result(status="no-ctypes", **evidence)
try:
    cuda = ctypes.CDLL("libcuda.so.1")
except OSError:
    result(status="no-libcuda", **evidence)
calls = {}
for name in ("cuInit", "cuDeviceGet", "cuCtxCreate_v2", "cuMemAlloc_v2", "cuMemFree_v2"):
    try:
        calls[name] = getattr(cuda, name)
    except AttributeError:
        result(status="no-symbol", step=name, **evidence)
    calls[name].restype = ctypes.c_int

def check(step, code):
    if code != 0:
        result(status="cuda-error", step=step, code=code, **evidence)

check("init", calls["cuInit"](ctypes.c_uint(0)))
device = ctypes.c_int(0)
check("device", calls["cuDeviceGet"](ctypes.byref(device), ctypes.c_int(0)))
context = ctypes.c_void_p()
check("context", calls["cuCtxCreate_v2"](ctypes.byref(context), ctypes.c_uint(0), device))
pointer = ctypes.c_uint64(0)
code = calls["cuMemAlloc_v2"](ctypes.byref(pointer), ctypes.c_size_t(size))
if code == ${CUDA_ERROR_OUT_OF_MEMORY}:
    result(status="out-of-memory", code=code, bytes=size, **evidence)
if code != 0:
    result(status="cuda-error", step="alloc", code=code, bytes=size, **evidence)
freed = calls["cuMemFree_v2"](pointer)
result(status="allocated", bytes=size, freed=freed, **evidence)
`;

/** The program on stdin: the script, then the end line. */
export function hamiTestStdin(): string {
  return `${HAMI_TEST_SCRIPT}${HAMI_TEST_END}\n`;
}

/** The remote argv (see the header): constant text, then the two numbers as their own argv entries. */
export function hamiTestArgv(attemptBytes: number, selfDeadlineSeconds = HAMI_TEST_SELF_DEADLINE_S): string[] {
  const bytes = Number.isSafeInteger(attemptBytes) && attemptBytes > 0 ? attemptBytes : 1;
  const seconds = Number.isSafeInteger(selfDeadlineSeconds) && selfDeadlineSeconds > 0 ? selfDeadlineSeconds : HAMI_TEST_SELF_DEADLINE_S;
  return ['python3', '-I', '-c', HAMI_TEST_BOOTSTRAP, String(bytes), String(seconds)];
}

/** The bytes the test allocates for a quota in MiB: quota + 64 MiB. */
export function attemptBytesFor(quotaMiB: number): number {
  return (quotaMiB + HAMI_TEST_MARGIN_MIB) * MiB;
}
