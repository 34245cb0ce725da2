// `kubectl kustomize DIR`, run for the CLI's `gpumem lint --kustomize DIR` and VS Code's "Lint Rendered Kustomize
// Overlay": an argument vector through LocalTransport (no shell), a timeout, output bounded (overflow kills the
// process group), cancellable. What the outcome means is core's (core/manifest/kustomizeRender.ts).
import { KUSTOMIZE_RENDER_TIMEOUT_MS, renderFailureOf, renderedOf } from '../core/manifest/kustomizeRender.ts';
import type { Rendered } from '../core/manifest/kustomizeRender.ts';
import { LocalTransport } from './local.ts';

export interface RenderRequest {
  readonly directory: string;
  readonly maxBytes: number;
  readonly cwd: string;
  /** A name looked up on PATH or a full path (VS Code: gpumem.kubernetes.kubectlPath). */
  readonly kubectl?: string;
  readonly signal?: AbortSignal;
}

export async function runKustomize(request: RenderRequest): Promise<Rendered> {
  const transport = new LocalTransport({
    command: [request.kubectl ?? 'kubectl', 'kustomize', request.directory],
    cwd: request.cwd,
    target: 'kubectl kustomize',
  });
  try {
    const result = await transport.run({
      script: '',
      timeoutMs: KUSTOMIZE_RENDER_TIMEOUT_MS,
      maxOutputBytes: request.maxBytes,
      ...(request.signal ? { signal: request.signal } : {}),
    });
    return renderedOf(result);
  } catch (error) {
    return renderFailureOf(error);
  } finally {
    await transport.close();
  }
}
