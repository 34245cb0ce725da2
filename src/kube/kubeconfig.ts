// Kubeconfig loading for the Clusters view: every context of every file, one client-node KubeConfig per
// context, and NEVER a write (nothing here opens a file for writing; the current context is only read).
//
// Where from, in kubectl's order (k8s.io/client-go/tools/clientcmd loader.go):
// 1. an explicit path (the `gpumem.kube.kubeconfig` setting, or --kubeconfig): that file only;
// 2. `KUBECONFIG`: a path-list (':' on Unix, ';' on Windows); empty entries and MISSING files are skipped,
//    as kubectl does;
// 3. `~/.kube/config`.
// Merging, as kubectl merges a KUBECONFIG list: the FIRST file that defines a cluster, user or context
// name wins (later duplicates are ignored, not errors), and `current-context` comes from the first file that
// sets a non-empty one. Relative file references (certificate-authority, client-certificate, client-key,
// tokenFile, and an exec command that contains a path separator) resolve against the directory of the file
// that defined them.
//
// client-node's own KubeConfig.loadFromDefault() differs, which is why it is not used: it throws on a
// duplicate name, lets a later file's current-context win, throws on a missing file, and reads ~/.kube/config
// synchronously on the extension host's thread.
//
// Exec credential plugins and proxies come from client-node as it supports them: `user.exec` runs the plugin
// (client.authentication.k8s.io, asynchronously, with the token cached until expirationTimestamp),
// `cluster.proxy-url` (http, https, socks) goes through undici's ProxyAgent or a SOCKS connector, and
// `tls-server-name` / `insecure-skip-tls-verify` are honoured. client-node does not read HTTPS_PROXY.
import { pushAll } from '../core/arrays.ts';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import type { BoundedTextRead } from '../files/boundedRead.ts';
import { INPUT_LIMITS, readBoundedText } from '../files/boundedRead.ts';
import { parseYamlLikeParse } from '../core/text/boundedYaml.ts';
import type { Cluster, Context, User } from '@kubernetes/client-node';
import type { ContextDescription } from '../core/kube/contextTreeItem.ts';

export type KubeconfigOrigin = 'setting' | 'KUBECONFIG' | 'default';

export interface KubeconfigSource {
  readonly origin: KubeconfigOrigin;
  /** The files to read, in precedence order. */
  readonly files: readonly string[];
}

export interface ResolveKubeconfigOptions {
  /** An explicit kubeconfig path (a setting); wins over KUBECONFIG. `~/` is expanded. */
  readonly explicitPath?: string | undefined;
  readonly env?: NodeJS.ProcessEnv;
  readonly home?: string;
  /** The KUBECONFIG list separator; default the platform's. */
  readonly delimiter?: string;
}

export interface LoadedContext extends ContextDescription {
  /** A KubeConfig holding only this context, its cluster and its user, with this context current. */
  readonly kubeConfig: KubeConfig;
}

export interface LoadedKubeconfig {
  readonly source: KubeconfigSource;
  /** Every context, in file order, duplicates dropped. */
  readonly contexts: readonly LoadedContext[];
  readonly currentContext: string | undefined;
  /** Files that were read. */
  readonly files: readonly string[];
  /** Files that did not exist (skipped, as kubectl does). */
  readonly missingFiles: readonly string[];
  /** Unreadable or malformed files and invalid entries; the rest still loads. */
  readonly problems: readonly string[];
}

export function expandHome(file: string, home: string): string {
  if (file === '~') return home;
  if (file.startsWith('~/') || file.startsWith('~\\')) return join(home, file.slice(2));
  return file;
}

/** Which files to read (see the header). Pure apart from reading the environment it is given. */
export function resolveKubeconfigFiles(options: ResolveKubeconfigOptions = {}): KubeconfigSource {
  const env = options.env ?? process.env;
  const home = options.home ?? env['HOME'] ?? env['USERPROFILE'] ?? homedir();
  const explicit = options.explicitPath?.trim();
  if (explicit) return { origin: 'setting', files: [resolve(expandHome(explicit, home))] };
  const list = env['KUBECONFIG'];
  if (list !== undefined && list.trim() !== '') {
    const seen = new Set<string>();
    const files: string[] = [];
    for (const entry of list.split(options.delimiter ?? delimiter)) {
      const trimmed = entry.trim();
      if (trimmed === '') continue;
      const file = resolve(expandHome(trimmed, home));
      if (seen.has(file)) continue; // clientcmd deduplicates the list
      seen.add(file);
      files.push(file);
    }
    if (files.length > 0) return { origin: 'KUBECONFIG', files };
  }
  return { origin: 'default', files: [join(home, '.kube', 'config')] };
}

interface ParsedFile {
  readonly file: string;
  readonly clusters: readonly Cluster[];
  readonly users: readonly User[];
  readonly contexts: readonly Context[];
  readonly currentContext: string | undefined;
}

function absolute(dir: string, value: unknown): unknown {
  return typeof value === 'string' && value !== '' && !isAbsolute(value) ? join(dir, value) : value;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

const MAX_KUBECONFIG_DEPTH = 64;

/** How deep objects and arrays nest in a parsed document, iteratively (a deep document cannot overflow the stack here). */
function nestingDepth(root: unknown): number {
  let deepest = 0;
  const stack: { value: unknown; depth: number }[] = [{ value: root, depth: 0 }];
  while (stack.length > 0) {
    const { value, depth } = stack.pop() as { value: unknown; depth: number };
    if (typeof value !== 'object' || value === null) continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > MAX_KUBECONFIG_DEPTH) return deepest;
    for (const child of Object.values(value)) stack.push({ value: child, depth: depth + 1 });
  }
  return deepest;
}

/** Makes the file references of a parsed kubeconfig absolute against its directory, as clientcmd does. */
function resolveFileReferences(doc: Record<string, unknown>, dir: string): void {
  for (const entry of Array.isArray(doc['clusters']) ? doc['clusters'] : []) {
    const cluster = record(record(entry)?.['cluster']);
    if (cluster) cluster['certificate-authority'] = absolute(dir, cluster['certificate-authority']);
  }
  for (const entry of Array.isArray(doc['users']) ? doc['users'] : []) {
    const user = record(record(entry)?.['user']);
    if (!user) continue;
    for (const key of ['client-certificate', 'client-key', 'token-file']) if (key in user) user[key] = absolute(dir, user[key]);
    const exec = record(user['exec']);
    // client-go resolves an exec command against the file only when it contains a path separator.
    if (exec && typeof exec['command'] === 'string' && (exec['command'].includes('/') || exec['command'].includes(sep)))
      exec['command'] = absolute(dir, exec['command']);
    const providerConfig = record(record(user['auth-provider'])?.['config']);
    if (providerConfig && 'tokenFile' in providerConfig) providerConfig['tokenFile'] = absolute(dir, providerConfig['tokenFile']);
  }
}

/**
 * Parses one kubeconfig text: YAML to a document, file references made absolute, then client-node's
 * KubeConfig.loadFromString on the result (JSON is YAML), dropping invalid entries with a problem for each.
 * Throws when the text is not YAML, not a mapping, or nests deeper than any kubeconfig (a clear message the caller reports).
 */
export function parseKubeconfigText(text: string, file: string): { parsed: ParsedFile; problems: string[] } {
  let doc: unknown;
  try {
    doc = parseYamlLikeParse(text);
  } catch (error) {
    // The yaml library recurses per nesting level: a stack overflow on very deep input escapes as a RangeError
    // or comes back as its own parse error with the overflow's message.
    if (error instanceof Error && (error instanceof RangeError || error.message.startsWith('Maximum call stack size exceeded'))) {
      throw new Error(`the file nests deeper than ${MAX_KUBECONFIG_DEPTH} levels, which no kubeconfig does`);
    }
    throw error;
  }
  const root = record(doc);
  if (!root) throw new Error('the file is not a YAML mapping');
  // client-node re-reads the JSON with js-yaml, which throws past 100 levels; no kubeconfig nests that deep.
  if (nestingDepth(root) > MAX_KUBECONFIG_DEPTH)
    throw new Error(`the file nests deeper than ${MAX_KUBECONFIG_DEPTH} levels, which no kubeconfig does`);
  resolveFileReferences(root, dirname(file));
  const json = JSON.stringify(root);
  const problems: string[] = [];
  try {
    new KubeConfig().loadFromString(json);
  } catch (error) {
    problems.push(`${file}: ${(error as Error).message}`);
  }
  const kc = new KubeConfig();
  kc.loadFromString(json, { onInvalidEntry: 'filter' });
  const current = kc.getCurrentContext();
  return {
    parsed: {
      file,
      clusters: kc.getClusters() ?? [],
      users: kc.getUsers() ?? [],
      contexts: kc.getContexts() ?? [],
      currentContext: typeof current === 'string' && current !== '' ? current : undefined,
    },
    problems,
  };
}

/** Merges parsed files as kubectl does: first definition of a name wins; first non-empty current-context. */
export function mergeKubeconfigs(files: readonly ParsedFile[]): {
  clusters: Map<string, Cluster>;
  users: Map<string, User>;
  contexts: Map<string, { context: Context; file: string }>;
  currentContext: string | undefined;
} {
  const clusters = new Map<string, Cluster>();
  const users = new Map<string, User>();
  const contexts = new Map<string, { context: Context; file: string }>();
  let currentContext: string | undefined;
  for (const file of files) {
    for (const cluster of file.clusters) if (!clusters.has(cluster.name)) clusters.set(cluster.name, cluster);
    for (const user of file.users) if (!users.has(user.name)) users.set(user.name, user);
    for (const context of file.contexts) if (!contexts.has(context.name)) contexts.set(context.name, { context, file: file.file });
    if (currentContext === undefined && file.currentContext !== undefined) currentContext = file.currentContext;
  }
  return { clusters, users, contexts, currentContext };
}

function contextKubeConfig(context: Context, cluster: Cluster | undefined, user: User | undefined): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({ clusters: cluster ? [cluster] : [], users: user ? [user] : [], contexts: [context], currentContext: context.name });
  return kc;
}

export interface LoadKubeconfigOptions extends ResolveKubeconfigOptions {
  /** Reads a file; default readBoundedText (UTF-8, at most MAX_KUBECONFIG_BYTES, regular files only). For tests. */
  readonly readText?: (file: string) => Promise<BoundedTextRead>;
}

/**
 * A kubeconfig larger than this is not read. Real ones are kilobytes to a few megabytes (a few kilobytes per
 * context with inline certificates); the cap is the lint's per-file cap (manifest/documentScreen.ts), and
 * keeps the YAML tree of the worst file (hundreds of bytes per character for one-character keys) in memory.
 */
export const MAX_KUBECONFIG_BYTES = INPUT_LIMITS.kubeconfig.limitBytes;

/** Reads and merges the kubeconfig files (never writes them). Problems are reported, not thrown. */
export async function loadKubeconfigs(options: LoadKubeconfigOptions = {}): Promise<LoadedKubeconfig> {
  const source = resolveKubeconfigFiles(options);
  const read = options.readText ?? ((file: string) => readBoundedText(file, { kind: 'kubeconfig' }));
  const problems: string[] = [];
  const missingFiles: string[] = [];
  const files: string[] = [];
  const parsedFiles: ParsedFile[] = [];
  for (const file of source.files) {
    const content = await read(file);
    if (content.kind === 'refused' && content.cause === 'missing') {
      missingFiles.push(file);
      continue;
    }
    if (content.kind !== 'read') {
      problems.push(`${file}: not read: ${content.reason}`);
      continue;
    }
    const text = content.text;
    files.push(file);
    if (text.trim() === '') continue;
    try {
      const { parsed, problems: fileProblems } = parseKubeconfigText(text, file);
      parsedFiles.push(parsed);
      pushAll(problems, fileProblems);
    } catch (error) {
      problems.push(`${file}: not a kubeconfig (${(error as Error).message.split('\n')[0]})`);
    }
  }
  const merged = mergeKubeconfigs(parsedFiles);
  const contexts: LoadedContext[] = [];
  for (const [name, { context, file }] of merged.contexts) {
    const cluster = merged.clusters.get(context.cluster);
    const user = context.user ? merged.users.get(context.user) : undefined;
    const missing: string[] = [];
    if (!cluster) missing.push(`cluster "${context.cluster}" is not defined`);
    if (context.user && !user) missing.push(`user "${context.user}" is not defined`);
    const exec = user?.exec as { command?: unknown } | undefined;
    contexts.push({
      name,
      cluster: context.cluster,
      user: context.user,
      namespace: context.namespace,
      server: cluster?.server,
      proxyUrl: cluster?.proxyUrl,
      execCommand: typeof exec?.command === 'string' ? exec.command : undefined,
      file,
      problem: missing.length > 0 ? missing.join('; ') : undefined,
      kubeConfig: contextKubeConfig(context, cluster, user),
    });
  }
  if (merged.currentContext !== undefined && !merged.contexts.has(merged.currentContext)) {
    problems.push(`current-context "${merged.currentContext}" is not defined`);
  }
  return { source, contexts, currentContext: merged.currentContext, files, missingFiles, problems };
}
