// Lint settings shared by the VS Code settings, the CLI's --config file and the defaults.
import type { Severity } from './findings.ts';
import { LIVE_RULES } from './live/liveRuleIds.ts';
import { RULES } from './rules/catalog.ts';
import { DEFAULT_HEADROOM_PERCENT, isHeadroomPercent, MAX_HEADROOM_PERCENT } from './sizing.ts';

/** The ids `rules` may set: the catalog's, and the live findings' (they are turned off or re-ranked the same way). */
const KNOWN_RULE_IDS = new Set<string>([...RULES.map((rule) => rule.id), ...Object.values(LIVE_RULES)]);

/** Marks nodes whose GPU memory is system RAM, matched against nodeSelector and required node affinity. */
export interface NodeLabelRule {
  readonly key: string;
  /** Exact values that mark a unified-memory node; omit both values and pattern to match on the key alone. */
  readonly values?: readonly string[];
  /** A regular expression (JavaScript syntax, case-insensitive) that a value must match. */
  readonly pattern?: string;
  readonly description?: string;
}

export type RuleSetting = Severity | 'off';

/** How HAMi-specific rules decide that a container is managed by HAMi. */
export type HamiDetection = 'auto' | 'always' | 'never';

export interface LintConfig {
  /** Headroom over the nominal GPU + host memory that limits and requests must leave on unified-memory targets, in percent. */
  readonly headroomPercent: number;
  readonly unifiedMemoryNodeLabels: readonly NodeLabelRule[];
  /** The taint key that reserves unified-memory GPU nodes; `uma-missing-toleration` is off while this is empty. */
  readonly dedicatedNodeTaintKey: string;
  readonly hamiDetection: HamiDetection;
  /**
   * Site-specific DRA device classes that hand out GPUs, on top of the drivers' own (gpu.nvidia.com,
   * mig.nvidia.com, gpu.amd.com, gpu.intel.com, hami-core-gpu…; see manifest/gpuSource.ts).
   */
  readonly gpuDeviceClasses: readonly string[];
  /** Per-rule overrides: turn a rule off or change its severity. */
  readonly rules: Readonly<Record<string, RuleSetting>>;
}

/** The project's own annotation and label domain. */
export const DOMAIN = 'gpumem.io';

export const ANNOTATIONS = {
  unifiedMemory: `${DOMAIN}/unified-memory`,
  gpuMemory: `${DOMAIN}/gpu-memory`,
  hostMemory: `${DOMAIN}/host-memory`,
  ignoreAll: `${DOMAIN}/ignore-all`,
  ignoreCheckPrefix: `ignore-check.${DOMAIN}/`,
} as const;

export const DEFAULT_UNIFIED_MEMORY_LABELS: readonly NodeLabelRule[] = [
  {
    key: 'amd.com/gpu.device-id',
    values: ['1586', '150e', '1114'],
    description:
      'AMD GPU operator node labeller: Strix Halo / Ryzen AI Max (1586, gfx1151), Strix Point (150e, gfx1150), Krackan Point (1114, gfx1152)',
  },
  { key: 'beta.amd.com/gpu.device-id', values: ['1586', '150e', '1114'], description: "The same, under the labeller's beta prefix" },
  { key: 'amd.com/gpu.family', pattern: '^GC_11_5_[0-2]$', description: 'AMD node labeller family for gfx1150–gfx1152 (RDNA 3.5 APUs)' },
  { key: 'beta.amd.com/gpu.family', pattern: '^GC_11_5_[0-2]$', description: 'The same, under the beta prefix' },
  { key: 'amd.com/gpu.product-name', pattern: 'Radeon.*(8060S|8050S|8040S|890M|880M|860M|840M)', description: 'AMD APU marketing names' },
  {
    key: 'nvidia.com/gpu.product',
    pattern: 'GB10\\b',
    description: 'NVIDIA GPU feature discovery: GB10 (DGX Spark) shares LPDDR5X with the CPU',
  },
  { key: `${DOMAIN}/unified-memory`, values: ['true'], description: 'A node label you set yourself on unified-memory nodes' },
];

export const DEFAULT_CONFIG: LintConfig = {
  headroomPercent: DEFAULT_HEADROOM_PERCENT,
  unifiedMemoryNodeLabels: DEFAULT_UNIFIED_MEMORY_LABELS,
  dedicatedNodeTaintKey: '',
  hamiDetection: 'auto',
  gpuDeviceClasses: [],
  rules: {},
};

export type ConfigProblem = { readonly path: string; readonly message: string };

/**
 * Merges a partial, untrusted configuration (a parsed --config file or VS Code settings) over the defaults.
 * Wrong types are reported and ignored, never thrown.
 */
export function resolveConfig(input: unknown, base: LintConfig = DEFAULT_CONFIG): { config: LintConfig; problems: ConfigProblem[] } {
  const problems: ConfigProblem[] = [];
  if (input === undefined || input === null) return { config: base, problems };
  if (typeof input !== 'object' || Array.isArray(input)) {
    return { config: base, problems: [{ path: '', message: 'configuration must be a mapping' }] };
  }
  const raw = input as Record<string, unknown>;
  const known = new Set([
    'headroomPercent',
    'unifiedMemoryNodeLabels',
    'dedicatedNodeTaintKey',
    'hamiDetection',
    'gpuDeviceClasses',
    'rules',
  ]);
  for (const key of Object.keys(raw))
    if (!known.has(key)) problems.push({ path: key, message: `unknown setting (known: ${[...known].join(', ')})` });
  let headroomPercent = base.headroomPercent;
  if (raw.headroomPercent !== undefined) {
    if (isHeadroomPercent(raw.headroomPercent)) headroomPercent = raw.headroomPercent;
    else problems.push({ path: 'headroomPercent', message: `must be a number from 0 to ${MAX_HEADROOM_PERCENT}` });
  }
  let unifiedMemoryNodeLabels = base.unifiedMemoryNodeLabels;
  if (raw.unifiedMemoryNodeLabels !== undefined) {
    const parsed = parseLabelRules(raw.unifiedMemoryNodeLabels, problems);
    if (parsed) unifiedMemoryNodeLabels = parsed;
  }
  let dedicatedNodeTaintKey = base.dedicatedNodeTaintKey;
  if (raw.dedicatedNodeTaintKey !== undefined) {
    if (typeof raw.dedicatedNodeTaintKey === 'string') dedicatedNodeTaintKey = raw.dedicatedNodeTaintKey.trim();
    else problems.push({ path: 'dedicatedNodeTaintKey', message: 'must be a string' });
  }
  let hamiDetection = base.hamiDetection;
  if (raw.hamiDetection !== undefined) {
    if (raw.hamiDetection === 'auto' || raw.hamiDetection === 'always' || raw.hamiDetection === 'never') hamiDetection = raw.hamiDetection;
    else problems.push({ path: 'hamiDetection', message: 'must be "auto", "always" or "never"' });
  }
  let gpuDeviceClasses = base.gpuDeviceClasses;
  if (raw.gpuDeviceClasses !== undefined) {
    const value = raw.gpuDeviceClasses;
    if (Array.isArray(value) && value.every((item) => typeof item === 'string' && item.trim().length > 0))
      gpuDeviceClasses = (value as string[]).map((item) => item.trim());
    else problems.push({ path: 'gpuDeviceClasses', message: 'must be a list of DeviceClass names' });
  }
  const rules: Record<string, RuleSetting> = { ...base.rules };
  if (raw.rules !== undefined) {
    if (typeof raw.rules === 'object' && raw.rules !== null && !Array.isArray(raw.rules)) {
      for (const [id, setting] of Object.entries(raw.rules as Record<string, unknown>)) {
        if (!KNOWN_RULE_IDS.has(id)) problems.push({ path: `rules.${id}`, message: 'unknown rule id (gpumem rules lists them)' });
        if (setting === 'off' || setting === 'error' || setting === 'warning' || setting === 'info') rules[id] = setting;
        else problems.push({ path: `rules.${id}`, message: 'must be "off", "error", "warning" or "info"' });
      }
    } else problems.push({ path: 'rules', message: 'must be a mapping of rule id to "off", "error", "warning" or "info"' });
  }
  return { config: { headroomPercent, unifiedMemoryNodeLabels, dedicatedNodeTaintKey, hamiDetection, gpuDeviceClasses, rules }, problems };
}

function parseLabelRules(value: unknown, problems: ConfigProblem[]): NodeLabelRule[] | undefined {
  if (!Array.isArray(value)) {
    problems.push({ path: 'unifiedMemoryNodeLabels', message: 'must be a list of {key, values?, pattern?}' });
    return undefined;
  }
  const rules: NodeLabelRule[] = [];
  value.forEach((item: unknown, index) => {
    const path = `unifiedMemoryNodeLabels[${index}]`;
    if (typeof item !== 'object' || item === null || typeof (item as { key?: unknown }).key !== 'string') {
      problems.push({ path, message: 'needs a string "key"' });
      return;
    }
    const { key, values, pattern, description } = item as Record<string, unknown>;
    if (values !== undefined && (!Array.isArray(values) || !values.every((v) => typeof v === 'string'))) {
      problems.push({ path: `${path}.values`, message: 'must be a list of strings' });
      return;
    }
    if (pattern !== undefined) {
      if (typeof pattern !== 'string') {
        problems.push({ path: `${path}.pattern`, message: 'must be a string' });
        return;
      }
      try {
        new RegExp(pattern, 'i');
      } catch (error) {
        problems.push({ path: `${path}.pattern`, message: `is not a valid regular expression: ${(error as Error).message}` });
        return;
      }
    }
    rules.push({
      key: key as string,
      ...(values ? { values: values as string[] } : {}),
      ...(typeof pattern === 'string' ? { pattern } : {}),
      ...(typeof description === 'string' ? { description } : {}),
    });
  });
  return rules;
}
