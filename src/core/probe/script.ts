// Assembles a probe script for one scope. Parameters are validated and embedded as shell assignments,
// so the command that runs the script is always the constant `sh -s`: nothing is built from data.
import type { ProbeScope } from './capture.ts';
import { DEFAULT_HAMI_LIB_PATH, HOST_ROOT, hamiLibPathProblem } from './hamiLibPath.ts';
import { CONTAINER_BODY } from './scripts/containerScript.ts';
import { NODE_BODY } from './scripts/nodeScript.ts';
import { PRELUDE } from './scripts/prelude.ts';

export const PROBE_FORMAT_VERSION = 1;

export interface ProbeScriptOptions {
  readonly scope: ProbeScope;
  /** Hex, 16–64 characters; it marks every line the probe prints so file content cannot forge markers. */
  readonly nonce: string;
  /** Node scope only: where the host's root is mounted ('' on the host, '/host' in a node debug pod). */
  readonly hostRoot?: string;
  /**
   * Node scope only: the host directory HAMi installs libvgpu.so, ld.so.preload and containers/ into. HAMi's
   * chart moves it with `devicePlugin.libPath` (default /usr/local/vgpu), e.g. to /var/lib/hami on Talos or
   * GKE COS, where /usr/local is read-only (charts/hami/values.yaml).
   */
  readonly hamiLibPath?: string;
}

const NONCE = /^[0-9a-f]{16,64}$/;

export function newNonce(): string {
  const bytes = new Uint8Array(12);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

export function buildProbeScript(options: ProbeScriptOptions): string {
  const root = options.scope === 'node' ? (options.hostRoot ?? '') : '';
  const body = options.scope === 'node' ? NODE_BODY : CONTAINER_BODY;
  return assembleProbeScript({
    nonce: options.nonce,
    hostRoot: root,
    scope: options.scope,
    comment: `# gpumem probe v${PROBE_FORMAT_VERSION}, scope ${options.scope}: read-only, bounded in time and size;\n# runs under busybox ash and dash. Send it to \`sh -s\` and save the output for \`gpumem analyze\`.`,
    body,
    ...(options.scope === 'node' ? { hamiLibPath: options.hamiLibPath ?? DEFAULT_HAMI_LIB_PATH } : {}),
  });
}

/** `/` is the machine's own root (the probe's `''`), and `/host/` is `/host`: the probe joins `$R/proc`. */
export function withoutTrailingSlashes(path: string): string {
  let end = path.length;
  while (end > 0 && path.charCodeAt(end - 1) === 47) end--;
  return path.slice(0, end);
}

/**
 * Validates the parameters and wraps a probe body with the header every probe shares (the parameter
 * assignments, the prelude, the capture header line, the final marker). Used by the full and light probes.
 */
export function assembleProbeScript(parts: {
  nonce: string;
  hostRoot: string;
  scope: ProbeScope;
  comment: string;
  body: string;
  hamiLibPath?: string;
}): string {
  if (!NONCE.test(parts.nonce)) throw new Error('probe nonce must be 16–64 lowercase hex characters');
  const hostRoot = withoutTrailingSlashes(parts.hostRoot);
  if (!HOST_ROOT.test(hostRoot))
    throw new Error(
      `host root "${parts.hostRoot}" must be an absolute path of letters, digits, '.', '_' and '-', without . or .. segments`,
    );
  const hamiProblem = parts.hamiLibPath !== undefined ? hamiLibPathProblem(parts.hamiLibPath) : undefined;
  if (hamiProblem !== undefined) throw new Error(hamiProblem);
  return [
    '#!/bin/sh',
    parts.comment,
    `GPUMEM_NONCE='${parts.nonce}'`,
    `GPUMEM_ROOT='${hostRoot}'`,
    ...(parts.hamiLibPath !== undefined ? [`GPUMEM_HAMI_DIR='${parts.hamiLibPath}'`] : []),
    PRELUDE.trim(),
    `printf '@@gpumem-probe v=${PROBE_FORMAT_VERSION} scope=${parts.scope} nonce=%s root=%s@@\\n' "$N" "$R"`,
    parts.body.trim(),
    'mark done',
    '',
  ].join('\n');
}
