// Node configuration that decides how much memory pods really get: kubelet reservations and
// containerd's default runtime (HAMi needs the NVIDIA runtime).
import { parseYamlLikeParse } from '../../text/boundedYaml.ts';
import { parseQuantity } from '../../quantity.ts';
import { parseContainerdRuntimes } from './containerdConfig.ts';

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

/**
 * A kubelet config is a few KiB; past this it is not one, and composing deeply nested YAML of a few MiB took the
 * yaml library past a 1.2 GB heap (the long fuzz run, seed 168661840): such a file is read as unreadable.
 */
export const MAX_KUBELET_CONFIG_CHARS = 256 * 1024;

/**
 * From the kubelet config file (YAML) and its command line flags. As in the kubelet, a flag overrides the
 * config file's value field by field; a config that is unreadable (the probe's "permission denied" line)
 * or sets nothing leaves the flags' values.
 */
export function parseKubeletReservations(configText: string | undefined, cmdline: string | undefined): KubeletReservations | undefined {
  let fromConfig: Omit<KubeletReservations, 'source'> | undefined;
  if (configText && configText.length <= MAX_KUBELET_CONFIG_CHARS) {
    try {
      const config = parseYamlLikeParse(configText, 50);
      if (config && typeof config === 'object' && !Array.isArray(config)) {
        const record = config as Record<string, unknown>;
        const section = (key: string) => (record[key] && typeof record[key] === 'object' ? (record[key] as Record<string, unknown>) : {});
        const eviction = section('evictionHard')['memory.available'];
        fromConfig = {
          systemReserved: memoryOf(section('systemReserved').memory),
          kubeReserved: memoryOf(section('kubeReserved').memory),
          evictionHard: typeof eviction === 'string' ? eviction : undefined,
        };
      }
    } catch {
      // not YAML: the flags alone
    }
  }
  let fromFlags: Omit<KubeletReservations, 'source'> | undefined;
  if (cmdline) {
    const flag = (name: string) => new RegExp(`--${name}[= ]([^ ]+)`).exec(cmdline)?.[1];
    const memoryIn = (list: string | undefined) => memoryOf(/(?:^|,)memory=([^,]+)/.exec(list ?? '')?.[1]);
    fromFlags = {
      systemReserved: memoryIn(flag('system-reserved')),
      kubeReserved: memoryIn(flag('kube-reserved')),
      evictionHard: /memory\.available<([^,]+)/.exec(flag('eviction-hard') ?? '')?.[1],
    };
  }
  if (!fromConfig && !fromFlags) return undefined;
  const sets = (values: Omit<KubeletReservations, 'source'> | undefined) =>
    values !== undefined && Object.values(values).some((value) => value !== undefined);
  const source =
    sets(fromConfig) && sets(fromFlags)
      ? 'kubelet config and command line'
      : sets(fromFlags) || !fromConfig
        ? 'kubelet command line'
        : 'kubelet config';
  return {
    systemReserved: fromFlags?.systemReserved ?? fromConfig?.systemReserved,
    kubeReserved: fromFlags?.kubeReserved ?? fromConfig?.kubeReserved,
    evictionHard: fromFlags?.evictionHard ?? fromConfig?.evictionHard,
    source,
  };
}

/** containerd's CRI default runtime (`default_runtime_name`, config v2 and v3); the last setting wins. */
export function parseContainerdDefaultRuntime(
  files: ReadonlyMap<string, string>,
): { runtime: string; file: string; line: string } | undefined {
  return parseContainerdRuntimes(files).defaultRuntime;
}
