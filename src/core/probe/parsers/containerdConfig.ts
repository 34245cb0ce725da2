// containerd's CRI runtimes, from config.toml and the files that stand in for it: the conf.d drop-ins
// nvidia-ctk writes, k3s' and RKE2's generated config.toml and their config[-v3].toml.tmpl templates
// (https://docs.k3s.io/advanced#configuring-containerd), and MicroK8s' containerd-template.toml.
// A runtime is NVIDIA's by what it runs, not by its name: its options.BinaryName (or the legacy
// `runtime`/`Runtime`) is nvidia-container-runtime, in any mode (`.cdi`, `.legacy`), or its
// runtime_type names NVIDIA (https://github.com/NVIDIA/nvidia-container-toolkit, `nvidia-ctk runtime
// configure` writes `runtimes.nvidia`, `nvidia-cdi` and `nvidia-legacy` with those binaries).
//
// containerd 1.2–1.4's legacy configuration (`[plugins.cri]`, no `version` line) runs the v1 shim
// (`runtime_type = "io.containerd.runtime.v1.linux"`): the binary is its `runtime_engine`, or when that is empty
// the `[plugins.linux]` (1.3+: `[plugins."io.containerd.runtime.v1.linux"]`) `runtime`; its default runtime may be
// the `default_runtime` table rather than a name (containerd docs/cri/config.md of those releases).
//
// Only the keys that matter are read, line by line (no TOML library: the templates are Go templates,
// not valid TOML). containerd merges config.toml first and its imports over it, in the order the probe
// captures them, so the last setting wins.

export interface ContainerdRuntime {
  readonly name: string;
  readonly runtimeType: string | undefined;
  /** options.BinaryName, or the v1 shim's `runtime` / `Runtime`. */
  readonly binary: string | undefined;
  readonly file: string;
  /** The lines that define it, trimmed, for evidence. */
  readonly lines: readonly string[];
}

export interface ContainerdDefault {
  readonly runtime: string;
  readonly file: string;
  readonly line: string;
}

export interface ContainerdRuntimes {
  readonly defaultRuntime: ContainerdDefault | undefined;
  readonly runtimes: ReadonlyMap<string, ContainerdRuntime>;
}

/** Why a runtime is NVIDIA's, or undefined when nothing in its definition says so. */
export type NvidiaRuntimeEvidence =
  | { readonly kind: 'binary'; readonly binary: string; readonly mode: 'cdi' | 'legacy' | 'auto' }
  | { readonly kind: 'runtime-type'; readonly runtimeType: string };

const MAX_LINES_PER_RUNTIME = 12;

export function parseContainerdRuntimes(files: ReadonlyMap<string, string>): ContainerdRuntimes {
  let defaultRuntime: ContainerdDefault | undefined;
  const runtimes = new Map<
    string,
    { name: string; runtimeType: string | undefined; binary: string | undefined; file: string; lines: string[] }
  >();
  let linuxRuntime: string | undefined;
  let legacyDefault: ContainerdDefault | undefined;
  const engines = new Map<string, string>();
  for (const [file, body] of files) {
    let current: string | undefined;
    let inLinuxPlugin = false;
    for (const raw of body.split('\n')) {
      const line = raw.trim();
      if (line.startsWith('[')) {
        inLinuxPlugin = isLinuxRuntimePlugin(line);
        current = runtimeOfTable(line);
        if (current === LEGACY_DEFAULT) legacyDefault = { runtime: LEGACY_DEFAULT, file, line };
        if (current !== undefined) {
          const existing = runtimes.get(current);
          const entry = existing ?? { name: current, runtimeType: undefined, binary: undefined, file, lines: [] };
          entry.file = file;
          if (entry.lines.length < MAX_LINES_PER_RUNTIME) entry.lines.push(line);
          runtimes.set(current, entry);
        }
        continue;
      }
      const assignment = keyValue(line);
      if (!assignment) continue;
      if (assignment.key === 'default_runtime_name') {
        // MicroK8s' template says "${RUNTIME}": a placeholder its launcher fills in, not a setting.
        if (!assignment.value.includes('${') && !assignment.value.includes('{{'))
          defaultRuntime = { runtime: assignment.value, file, line };
        continue;
      }
      if (inLinuxPlugin && assignment.key === 'runtime') {
        linuxRuntime = assignment.value;
        continue;
      }
      const entry = current === undefined ? undefined : runtimes.get(current);
      if (!entry) continue;
      if (assignment.key === 'runtime_engine') engines.set(entry.name, assignment.value);
      else if (assignment.key === 'runtime_type') entry.runtimeType = assignment.value;
      else if (assignment.key === 'BinaryName' || assignment.key === 'runtime' || assignment.key === 'Runtime')
        entry.binary = assignment.value;
      else continue;
      if (entry.lines.length < MAX_LINES_PER_RUNTIME) entry.lines.push(line);
    }
  }
  // The v1 shim runs runtime_engine, else the linux plugin's runtime (runc unless set).
  for (const entry of runtimes.values()) {
    if (entry.binary !== undefined || !(entry.runtimeType === undefined || entry.runtimeType === V1_SHIM)) continue;
    const engine = engines.get(entry.name);
    const binary = engine !== undefined && engine !== '' ? engine : entry.runtimeType === V1_SHIM ? linuxRuntime : undefined;
    if (binary !== undefined) entry.binary = binary;
  }
  return { defaultRuntime: defaultRuntime ?? legacyDefault, runtimes };
}

const V1_SHIM = 'io.containerd.runtime.v1.linux';
/** containerd ≤ 1.4's `[plugins.cri.containerd.default_runtime]`: the default runtime as a table, not a name. */
const LEGACY_DEFAULT = 'default_runtime';

/** `[plugins.linux]` (containerd 1.2) or `[plugins."io.containerd.runtime.v1.linux"]` (1.3+): the v1 shim's runtime. */
function isLinuxRuntimePlugin(header: string): boolean {
  const keys = dottedKeys(header.slice(1, header.lastIndexOf(']')));
  return keys.length === 2 && keys[0] === 'plugins' && (keys[1] === 'linux' || keys[1] === V1_SHIM);
}

export function nvidiaRuntimeEvidence(runtime: ContainerdRuntime): NvidiaRuntimeEvidence | undefined {
  if (runtime.binary !== undefined) {
    const base = runtime.binary.slice(runtime.binary.lastIndexOf('/') + 1);
    if (base === 'nvidia-container-runtime') return { kind: 'binary', binary: runtime.binary, mode: 'auto' };
    if (base === 'nvidia-container-runtime.cdi') return { kind: 'binary', binary: runtime.binary, mode: 'cdi' };
    if (base === 'nvidia-container-runtime.legacy') return { kind: 'binary', binary: runtime.binary, mode: 'legacy' };
  }
  if (runtime.runtimeType !== undefined && runtime.runtimeType.toLowerCase().includes('nvidia'))
    return { kind: 'runtime-type', runtimeType: runtime.runtimeType };
  return undefined;
}

export function describeNvidiaEvidence(evidence: NvidiaRuntimeEvidence): string {
  if (evidence.kind === 'runtime-type') return `runtime_type ${evidence.runtimeType}`;
  return `${evidence.binary}${evidence.mode === 'cdi' ? ' (CDI mode)' : evidence.mode === 'legacy' ? ' (legacy mode)' : ''}`;
}

/**
 * `[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]` (v2), `[plugins.'io.containerd.cri.v1.runtime'
 * .containerd.runtimes.'nvidia'.options]` (v3): the runtime's name, for the table and its options.
 */
function runtimeOfTable(header: string): string | undefined {
  const close = header.lastIndexOf(']');
  if (close < 0) return undefined;
  const keys = dottedKeys(header.slice(header.startsWith('[[') ? 2 : 1, close));
  const legacy = keys.lastIndexOf(LEGACY_DEFAULT);
  if (
    legacy >= 1 &&
    keys[legacy - 1] === 'containerd' &&
    (legacy === keys.length - 1 || (legacy === keys.length - 2 && keys[legacy + 1] === 'options'))
  )
    return LEGACY_DEFAULT;
  const at = keys.lastIndexOf('runtimes');
  if (at < 1 || keys[at - 1] !== 'containerd') return undefined;
  const rest = keys.slice(at + 1);
  if (rest.length === 1 || (rest.length === 2 && rest[1] === 'options')) return rest[0];
  return undefined;
}

/** A TOML dotted key, with "double" and 'single' quoted parts, in one pass. */
function dottedKeys(text: string): string[] {
  const keys: string[] = [];
  let current = '';
  let quote: string | undefined;
  for (const ch of text) {
    if (quote !== undefined) {
      if (ch === quote) quote = undefined;
      else current += ch;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '.') {
      keys.push(current.trim());
      current = '';
    } else current += ch;
  }
  keys.push(current.trim());
  return keys;
}

/** `key = "value"` or `key = 'value'` (the string keys read here); anything else is ignored. */
function keyValue(line: string): { key: string; value: string } | undefined {
  const eq = line.indexOf('=');
  if (eq <= 0) return undefined;
  const key = line.slice(0, eq).trim();
  const rest = line.slice(eq + 1).trim();
  const quote = rest.charAt(0);
  if (quote !== '"' && quote !== "'") return undefined;
  const end = rest.indexOf(quote, 1);
  if (end < 0) return undefined;
  return { key, value: rest.slice(1, end) };
}
