// Node configuration that decides how much memory pods really get: kubelet reservations and
// containerd's default runtime (HAMi needs the NVIDIA runtime).
import { parse } from 'yaml';
import { parseQuantity } from '../../quantity.ts';

export interface KubeletReservations {
  readonly systemReserved: number | undefined;
  readonly kubeReserved: number | undefined;
  /** `memory.available` hard-eviction threshold in bytes (a percentage is resolved against MemTotal by the caller). */
  readonly evictionHard: string | undefined;
  readonly source: string;
}

function memoryOf(value: unknown): number | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const parsed = parseQuantity(String(value));
  return parsed.ok ? parsed.quantity.value : undefined;
}

/** From the kubelet config file (YAML) or, failing that, its command line flags. */
export function parseKubeletReservations(configText: string | undefined, cmdline: string | undefined): KubeletReservations | undefined {
  if (configText) {
    try {
      const config = parse(configText, { maxAliasCount: 50 }) as Record<string, unknown> | null;
      if (config && typeof config === 'object') {
        const section = (key: string) => (config[key] && typeof config[key] === 'object' ? (config[key] as Record<string, unknown>) : {});
        return {
          systemReserved: memoryOf(section('systemReserved').memory),
          kubeReserved: memoryOf(section('kubeReserved').memory),
          evictionHard: typeof section('evictionHard')['memory.available'] === 'string' ? (section('evictionHard')['memory.available'] as string) : undefined,
          source: 'kubelet config',
        };
      }
    } catch {
      // fall through to the command line
    }
  }
  if (cmdline) {
    const flag = (name: string) => new RegExp(`--${name}[= ]([^ ]+)`).exec(cmdline)?.[1];
    const memoryIn = (list: string | undefined) => memoryOf(/(?:^|,)memory=([^,]+)/.exec(list ?? '')?.[1]);
    return {
      systemReserved: memoryIn(flag('system-reserved')),
      kubeReserved: memoryIn(flag('kube-reserved')),
      evictionHard: /memory\.available<([^,]+)/.exec(flag('eviction-hard') ?? '')?.[1],
      source: 'kubelet command line',
    };
  }
  return undefined;
}

/** containerd's CRI default runtime: `default_runtime_name = "nvidia"` (config v2 and v3). */
export function parseContainerdDefaultRuntime(files: ReadonlyMap<string, string>): { runtime: string; file: string; line: string } | undefined {
  for (const [file, body] of files) {
    for (const line of body.split('\n')) {
      const match = /^\s*default_runtime_name\s*=\s*["']([^"']*)["']/.exec(line);
      if (match?.[1] !== undefined) return { runtime: match[1], file, line: line.trim() };
    }
  }
  return undefined;
}
