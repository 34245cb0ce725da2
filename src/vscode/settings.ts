// One typed snapshot of gpumem's settings, re-read when they change.
import * as vscode from 'vscode';
import { resolveConfig } from '../core/config.ts';
import type { LintConfig } from '../core/config.ts';
import type { HamiLibPathSetting } from '../core/probe/hamiLibPath.ts';
import { parseHamiLibPathSetting } from '../core/probe/hamiLibPath.ts';

export type CodeLensMode = 'all' | 'summary' | 'off';

export interface Settings {
  readonly enabled: boolean;
  readonly lint: LintConfig;
  readonly problems: readonly string[];
  readonly exclude: readonly string[];
  readonly maxFileBytes: number;
  readonly debounceMs: number;
  readonly codeLens: CodeLensMode;
  readonly probeTimeoutMs: number;
  /** HAMi's host directory for node probes (Inspect Local, SSH, Node). */
  readonly hamiLibPath: HamiLibPathSetting;
}

/** Workspace scans may read larger files than live linting, but never unbounded ones. */
export const WORKSPACE_SCAN_MAX_BYTES = 16 * 1024 * 1024;

export function readSettings(): Settings {
  const section = vscode.workspace.getConfiguration('gpumem.lint');
  const raw: Record<string, unknown> = {
    headroomPercent: section.get('headroomPercent'),
    dedicatedNodeTaintKey: section.get('dedicatedNodeTaintKey'),
    hamiDetection: section.get('hamiDetection'),
    gpuDeviceClasses: section.get('gpuDeviceClasses'),
    rules: section.get('rules'),
  };
  const labels = section.get('unifiedMemoryNodeLabels');
  if (labels !== null && labels !== undefined) raw.unifiedMemoryNodeLabels = labels;
  const { config, problems } = resolveConfig(raw);
  const codeLens = section.get<string>('codeLens');
  const probe = vscode.workspace.getConfiguration('gpumem.probe');
  const hamiLibPath = parseHamiLibPathSetting(probe.get('hamiLibPath'));
  return {
    enabled: section.get<boolean>('enable', true),
    lint: config,
    problems: [
      ...problems.map((problem) => `gpumem.lint.${problem.path}: ${problem.message}`),
      ...(hamiLibPath.kind === 'invalid' ? [`gpumem.probe.hamiLibPath: ${hamiLibPath.problem} (using /usr/local/vgpu)`] : []),
    ],
    exclude: section.get<string[]>('exclude', []).filter((glob) => typeof glob === 'string'),
    maxFileBytes: Math.max(16, section.get<number>('maxFileSizeKB', 1024)) * 1024,
    debounceMs: Math.min(5000, Math.max(0, section.get<number>('debounceMs', 250))),
    codeLens: codeLens === 'summary' || codeLens === 'off' ? codeLens : 'all',
    probeTimeoutMs: Math.min(3600, Math.max(5, probe.get<number>('timeoutSeconds', 120))) * 1000,
    hamiLibPath,
  };
}
