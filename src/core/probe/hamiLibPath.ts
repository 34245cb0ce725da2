// The `gpumem.probe.hamiLibPath` setting: HAMi's host directory (its chart's devicePlugin.libPath,
// https://github.com/Project-HAMi/HAMi/blob/master/charts/hami/values.yaml), which the node probe reads
// for libvgpu.so and ld.so.preload. Checked like --host-root, because it is written into the probe script.
// The check lives here, not in ./script.ts, so that reading the settings (the lint core) loads no probe script.

export const DEFAULT_HAMI_LIB_PATH = '/usr/local/vgpu';

/** Absolute, segments of letters, digits, '.', '_' and '-', none of them `.` or `..` (also the --host-root check). */
export const HOST_ROOT = /^(\/(?!\.\.?(?:\/|$))[A-Za-z0-9._-]+)*$/;

/** Why `path` cannot be HAMi's library directory (it goes into the script in single quotes), or undefined. */
export function hamiLibPathProblem(path: string): string | undefined {
  if (path !== '' && path.length <= 4096 && HOST_ROOT.test(path)) return undefined;
  const shown = path.length > 80 ? `${path.slice(0, 80)}…` : path;
  return `HAMi library path "${shown}" must be an absolute path of letters, digits, '.', '_' and '-', without . or .. segments`;
}

export type HamiLibPathSetting =
  | { readonly kind: 'default' }
  | { readonly kind: 'custom'; readonly path: string }
  | { readonly kind: 'invalid'; readonly problem: string };

/** A raw setting value (anything a settings.json can hold) → the directory to use, or why not. */
export function parseHamiLibPathSetting(raw: unknown): HamiLibPathSetting {
  if (raw === undefined || raw === null) return { kind: 'default' };
  if (typeof raw !== 'string') return { kind: 'invalid', problem: `expected a path, got ${Array.isArray(raw) ? 'an array' : typeof raw}` };
  const path = raw.trim();
  if (path === '' || path === DEFAULT_HAMI_LIB_PATH) return { kind: 'default' };
  const problem = hamiLibPathProblem(path);
  return problem === undefined ? { kind: 'custom', path } : { kind: 'invalid', problem };
}

/** The `hamiLibPath` probe option for a setting: nothing for the default (and for an invalid value, already reported). */
export function hamiLibPathOption(setting: HamiLibPathSetting): { hamiLibPath?: string } {
  return setting.kind === 'custom' ? { hamiLibPath: setting.path } : {};
}
