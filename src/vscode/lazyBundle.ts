// One bundle beside dist/extension.js that is required the first time it is needed, not at activation (issue
// 16): dist/inspect.js (the inspector and the local inspection commands) and dist/remote.js (Kubernetes and
// SSH). esbuild cannot split CommonJS output, so each is a bundle of its own; scripts/build.mjs lists them.
// The first load is logged with what asked for it: the e2e tier reads that line (clustersActivation).
import type * as vscode from 'vscode';

/** A lazily loaded bundle: its file name in dist/ and, for the log, what it holds. */
export interface BundleFile {
  readonly file: string;
  readonly holds: string;
}

export const INSPECT_BUNDLE: BundleFile = { file: 'inspect.js', holds: 'inspector, local inspection' };
export const REMOTE_BUNDLE: BundleFile = { file: 'remote.js', holds: 'Kubernetes, SSH' };

type BundleState<T> = { readonly kind: 'unloaded' } | { readonly kind: 'loaded'; readonly module: T };

export class LazyBundle<T> {
  readonly bundle: BundleFile;
  readonly #output: vscode.LogOutputChannel;
  readonly #require: (file: string) => unknown;
  #state: BundleState<T> = { kind: 'unloaded' };

  /** `require` loads a file of dist/ (src/extension.ts passes one that esbuild leaves alone). */
  constructor(output: vscode.LogOutputChannel, bundle: BundleFile, require: (file: string) => unknown) {
    this.#output = output;
    this.bundle = bundle;
    this.#require = require;
  }

  get loaded(): boolean {
    return this.#state.kind === 'loaded';
  }

  /** The bundle's exports, required on the first call; `reason` says in the log what needed it. */
  get(reason: string): T {
    if (this.#state.kind === 'loaded') return this.#state.module;
    const started = performance.now();
    // The bundle is built from the module T describes (scripts/build.mjs); the cast is where the two halves meet.
    const module = this.#require(this.bundle.file) as T;
    this.#state = { kind: 'loaded', module };
    this.#output.info(
      `loaded ${this.bundle.file} (${this.bundle.holds}) in ${Math.round(performance.now() - started)} ms, first used by ${reason}`,
    );
    return module;
  }
}

/** The file names of the bundles loaded so far, dist/extension.js first: the activation log line lists them. */
export function loadedBundles(bundles: readonly LazyBundle<unknown>[]): string {
  return ['extension.js', ...bundles.filter((bundle) => bundle.loaded).map((bundle) => bundle.bundle.file)].join(', ');
}
