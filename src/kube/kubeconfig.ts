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
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { Composer, LineCounter, Parser, YAMLParseError } from 'yaml';
import type { CST, Document } from 'yaml';
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

/** The CST tokens up to and including the first stream-level error token, none after it. */
function* untilFirstError(tokens: Generator<CST.Token>): Generator<CST.Token> {
  for (const token of tokens) {
    yield token;
    if (token.type === 'error') return;
  }
}

/**
 * The yaml library's parse(text, { logLevel: 'error' }), with the same value and the same first error, but in
 * memory bounded by the text: parse() composes the whole token stream and builds a YAMLParseError (with its
 * captured stack) for EVERY stray token, then throws only the first. Garbage after the document (a run of
 * unbalanced brackets is one error token per character) made millions of them, gigabytes for a 4 MiB file.
 * Here the stream stops at its first error token, which cannot change the first error (every earlier one
 * comes from earlier tokens), so at most one such error is built.
 */
function parseYaml(text: string): unknown {
  const options = { logLevel: 'error' } as const;
  const lineCounter = new LineCounter();
  const composer = new Composer(options);
  let doc: Document.Parsed | undefined;
  for (const next of composer.compose(untilFirstError(new Parser(lineCounter.addNewLine).parse(text)), true, text.length)) {
    if (!doc) {
      doc = next;
    } else {
      doc.errors.push(
        new YAMLParseError(
          [next.range[0], next.range[1]],
          'MULTIPLE_DOCS',
          'Source contains multiple documents; please use YAML.parseAllDocuments()',
        ),
      );
      break;
    }
  }
  if (!doc) return null;
  const [first] = doc.errors;
  if (first) throw prettified(first, text, lineCounter);
  return doc.toJS(options);
}

/**
 * The error as parse() words it (yaml's prettifyError, which the package does not export): " at line L, column C"
 * and the line with a caret. Adapted from yaml's src/errors.ts (https://github.com/eemeli/yaml), under its ISC
 * License:
 *
 * Copyright Eemeli Aro <eemeli@gmail.com>
 *
 * Permission to use, copy, modify, and/or distribute this software for any purpose
 * with or without fee is hereby granted, provided that the above copyright notice
 * and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES WITH
 * REGARD TO THIS SOFTWARE INCLUDING ALL IMPLIED WARRANTIES OF MERCHANTABILITY AND
 * FITNESS. IN NO EVENT SHALL THE AUTHOR BE LIABLE FOR ANY SPECIAL, DIRECT,
 * INDIRECT, OR CONSEQUENTIAL DAMAGES OR ANY DAMAGES WHATSOEVER RESULTING FROM LOSS
 * OF USE, DATA OR PROFITS, WHETHER IN AN ACTION OF CONTRACT, NEGLIGENCE OR OTHER
 * TORTIOUS ACTION, ARISING OUT OF OR IN CONNECTION WITH THE USE OR PERFORMANCE OF
 * THIS SOFTWARE.
 */
function prettified(error: YAMLParseError, text: string, lineCounter: LineCounter): YAMLParseError {
  if (error.pos[0] === -1) return error;
  error.linePos = [lineCounter.linePos(error.pos[0]), lineCounter.linePos(error.pos[1])];
  const { line, col } = error.linePos[0];
  error.message += ` at line ${line}, column ${col}`;
  let ci = col - 1;
  const start = lineCounter.lineStarts[line - 1] ?? 0;
  // The parser stopped at the error: the line's end may not be counted yet.
  const newline = text.indexOf('\n', start);
  let lineStr = text.substring(start, lineCounter.lineStarts[line] ?? (newline === -1 ? text.length : newline + 1));
  lineStr = withoutLineEnd(lineStr);
  if (ci >= 60 && lineStr.length > 80) {
    const trimStart = Math.min(ci - 39, lineStr.length - 79);
    lineStr = `…${lineStr.substring(trimStart)}`;
    ci -= trimStart - 1;
  }
  if (lineStr.length > 80) lineStr = `${lineStr.substring(0, 79)}…`;
  if (line > 1 && /^ *$/.test(lineStr.substring(0, ci))) {
    let prev = text.substring(lineCounter.lineStarts[line - 2] ?? 0, lineCounter.lineStarts[line - 1]);
    if (prev.length > 80) prev = `${prev.substring(0, 79)}…\n`;
    lineStr = prev + lineStr;
  }
  if (/[^ ]/.test(lineStr)) {
    const end = error.linePos[1];
    const count = end.line === line && end.col > col ? Math.max(1, Math.min(end.col - col, 80 - ci)) : 1;
    error.message += `:\n\n${lineStr}\n${' '.repeat(ci)}${'^'.repeat(count)}\n`;
  }
  return error;
}

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
    doc = parseYaml(text);
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
  /** Reads a file; default fs.promises.readFile as UTF-8. For tests. */
  readonly readText?: (file: string) => Promise<string>;
}

/** Reads and merges the kubeconfig files (never writes them). Problems are reported, not thrown. */
export async function loadKubeconfigs(options: LoadKubeconfigOptions = {}): Promise<LoadedKubeconfig> {
  const source = resolveKubeconfigFiles(options);
  const read = options.readText ?? ((file: string) => readFile(file, 'utf8'));
  const problems: string[] = [];
  const missingFiles: string[] = [];
  const files: string[] = [];
  const parsedFiles: ParsedFile[] = [];
  for (const file of source.files) {
    let text: string;
    try {
      text = await read(file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') missingFiles.push(file);
      else problems.push(`${file}: cannot read (${code ?? (error as Error).message})`);
      continue;
    }
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

/** The text without its trailing CR/LF characters, in one backward pass (`/[\n\r]+$/` is quadratic on a run of them). */
function withoutLineEnd(text: string): string {
  let end = text.length;
  while (end > 0 && (text[end - 1] === '\n' || text[end - 1] === '\r')) end--;
  return text.slice(0, end);
}
