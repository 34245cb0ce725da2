// DRM fdinfo (Documentation/gpu/drm-usage-stats.rst): per-client GPU memory by region,
// deduplicated on drm-client-id, attributed to processes and, through their cgroup, to pods.
import { cgroupPathFromProcCgroup } from '../podCgroup.ts';

export interface DrmClient {
  readonly clientId: string | undefined;
  readonly driver: string | undefined;
  readonly pdev: string | undefined;
  /** Resident bytes per region (`drm-resident-<r>`, or the deprecated alias `drm-memory-<r>`). */
  readonly resident: ReadonlyMap<string, number>;
  /** Total bytes per region (`drm-total-<r>`), when the driver reports it. */
  readonly total: ReadonlyMap<string, number>;
}

const UNITS: Record<string, number> = { '': 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3 };

/** Parses one fdinfo file. Non-DRM fdinfo (pos/flags/mnt_id only) gives a client with no driver. */
export function parseFdinfo(text: string): DrmClient {
  const fields = new Map<string, string>();
  for (const line of text.split('\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    fields.set(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  const resident = new Map<string, number>();
  const total = new Map<string, number>();
  for (const [key, value] of fields) {
    // drm-total-cycles-<engine> is an engine counter, not a memory region.
    const match = /^drm-(resident|memory|total)-(?!cycles-)(.+)$/.exec(key);
    if (!match?.[1] || !match[2]) continue;
    const bytes = parseMemoryValue(value);
    if (bytes === undefined) continue;
    if (match[1] === 'total') total.set(match[2], bytes);
    // drm-resident-* wins over the deprecated drm-memory-* alias, when it is readable (not cut or garbled).
    else if (match[1] === 'resident' || parseMemoryValue(fields.get(`drm-resident-${match[2]}`) ?? '') === undefined) resident.set(match[2], bytes);
  }
  return { clientId: fields.get('drm-client-id'), driver: fields.get('drm-driver'), pdev: fields.get('drm-pdev'), resident, total };
}

export function parseMemoryValue(value: string): number | undefined {
  const match = /^(\d+)\s*(KiB|MiB|GiB)?$/.exec(value.trim());
  if (!match?.[1]) return undefined;
  return Number(match[1]) * (UNITS[match[2] ?? ''] ?? 1);
}

export interface ProcessGpuMemory {
  readonly pid: number;
  readonly comm: string | undefined;
  /** The process's cgroup path (v2 line, or the v1 memory controller line). */
  readonly cgroup: string | undefined;
  readonly clients: readonly DrmClient[];
  /** Bytes per region summed over this process's distinct clients. */
  readonly byRegion: ReadonlyMap<string, number>;
}

/**
 * Groups the probe's `fdinfo` section records (`<proc>/<pid>/fdinfo/<fd>`, `<proc>/<pid>/cgroup`, `<proc>/<pid>/comm`)
 * by process, keeping one client per drm-client-id (dup'ed and shared fds repeat the same client).
 */
export function aggregateFdinfo(records: ReadonlyMap<string, string>): ProcessGpuMemory[] {
  const byPid = new Map<number, { comm?: string; cgroup?: string; clients: Map<string, DrmClient> }>();
  const entry = (pid: number) => {
    let value = byPid.get(pid);
    if (!value) {
      value = { clients: new Map() };
      byPid.set(pid, value);
    }
    return value;
  };
  for (const [path, body] of records) {
    const match = /\/proc\/(\d+)\/(fdinfo\/(\d+)|cgroup|comm)$/.exec(path);
    if (!match?.[1]) continue;
    const pid = Number(match[1]);
    if (match[2] === 'comm') entry(pid).comm = body.trim();
    else if (match[2] === 'cgroup') entry(pid).cgroup = cgroupOf(body);
    else {
      const client = parseFdinfo(body);
      if (!client.driver) continue;
      const key = client.clientId !== undefined ? `${client.pdev ?? ''}#${client.clientId}` : `fd#${match[3]}`;
      entry(pid).clients.set(key, client);
    }
  }
  const out: ProcessGpuMemory[] = [];
  for (const [pid, value] of byPid) {
    if (value.clients.size === 0) continue;
    const byRegion = new Map<string, number>();
    for (const client of value.clients.values()) {
      for (const [region, bytes] of client.resident) byRegion.set(region, (byRegion.get(region) ?? 0) + bytes);
    }
    out.push({ pid, comm: value.comm, cgroup: value.cgroup, clients: [...value.clients.values()], byRegion });
  }
  return out.sort((a, b) => a.pid - b.pid);
}

/**
 * The cgroup path from /proc/<pid>/cgroup: the v2 `0::` line on a v2 host, the v1 memory controller line
 * on a v1 host. On a hybrid host both exist and the `0::` line is often just `/`, so the choice is
 * podCgroup's (the line that places the process in a pod).
 */
export function cgroupOf(text: string): string | undefined {
  return cgroupPathFromProcCgroup(text);
}
