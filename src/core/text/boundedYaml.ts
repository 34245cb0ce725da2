// The yaml library's parse() for one-document files read whole (a kubeconfig, the kubelet's config, a gpumem
// config): the same value and the same first error, in memory bounded by the text (parse() builds an error
// object, stack included, for every problem it meets: gigabytes for a few megabytes of stray brackets).
import { Composer, isAlias, LineCounter, Parser, visit, YAMLParseError } from 'yaml';
import type { CST, Document } from 'yaml';

/** The CST tokens up to and including the first stream-level error token, none after it. */
function* untilFirstError(tokens: Generator<CST.Token>): Generator<CST.Token> {
  for (const token of tokens) {
    yield token;
    if (token.type === 'error') return;
  }
}

type ErrorSink = (source: unknown, code: string, message: string, warning?: boolean) => void;

/**
 * The composer's error sink, keeping only the first error it is given and no warning (logLevel 'error' ignores
 * them). The composer builds a YAMLParseError, stack included, for every duplicate key, tab indent or
 * unresolved alias: 370 bytes per character of a 1 MB file of `a: 1` lines, gigabytes for the largest file
 * we read. Every call site reads `composer.onError` when it reports (yaml 2.x, src/compose/composer.ts), and
 * errors reach `doc.errors` in the order they were reported except error tokens, which untilFirstError cuts,
 * so keeping the first one keeps `doc.errors[0]`, the one parse() would throw.
 */
export function keepFirstError(composer: Composer): void {
  // onError is public in the JavaScript and private only in yaml's type declarations.
  const sink = composer as unknown as { onError: ErrorSink };
  const report = sink.onError;
  let kept = false;
  sink.onError = (source, code, message, warning) => {
    if (warning || kept) return;
    kept = true;
    report(source, code, message, warning);
  };
}

/**
 * The yaml library's parse(text, { logLevel: 'error' }), with the same value and the same first error, but in
 * memory bounded by the text: parse() composes the whole token stream and builds a YAMLParseError (with its
 * captured stack) for EVERY stray token, then throws only the first. Garbage after the document (a run of
 * unbalanced brackets is one error token per character) made millions of them, gigabytes for a 4 MiB file.
 * Here the stream stops at its first error token, which cannot change the first error (every earlier one
 * comes from earlier tokens), and the composer keeps only its first error (keepFirstError), so at most two
 * errors are built.
 */
export function parseYamlLikeParse(text: string, maxAliasCount = 100): unknown {
  const options = { logLevel: 'error', maxAliasCount } as const;
  const lineCounter = new LineCounter();
  const composer = new Composer(options);
  keepFirstError(composer);
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
  try {
    return doc.toJS(options);
  } catch (error) {
    // yaml resolves aliases only here, and throws a bare ReferenceError, with no position, for an alias whose anchor
    // is not set before it or for more alias expansions than maxAliasCount (parse() throws the same). It is a parse
    // error of the text, thrown as one, at the alias: callers report YAML errors with their line and column.
    if (!(error instanceof ReferenceError)) throw error;
    throw prettified(new YAMLParseError(aliasRange(doc), 'BAD_ALIAS', error.message), text, lineCounter);
  }
}

/**
 * Where the alias error is: the first alias with no anchor of its name before it (yaml's Alias.resolve looks for the
 * last such anchor in document order), else the first alias; [-1, -1] when there is none. One pass over the nodes.
 */
function aliasRange(doc: Document.Parsed): [number, number] {
  const anchors = new Set<string>();
  let first: [number, number] | undefined;
  let unresolved: [number, number] | undefined;
  visit(doc, {
    Node(_key, node) {
      if (isAlias(node)) {
        const range: [number, number] = node.range ? [node.range[0], node.range[1]] : [-1, -1];
        first ??= range;
        if (!anchors.has(node.source)) {
          unresolved = range;
          return visit.BREAK;
        }
      } else if (node.anchor) anchors.add(node.anchor);
      return undefined;
    },
  });
  return unresolved ?? first ?? [-1, -1];
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

/** The text without its trailing CR/LF characters, in one backward pass (`/[\n\r]+$/` is quadratic on a run of them). */
function withoutLineEnd(text: string): string {
  let end = text.length;
  while (end > 0 && (text[end - 1] === '\n' || text[end - 1] === '\r')) end--;
  return text.slice(0, end);
}
