// A webview stylesheet as esbuild bundles it into dist/webview/: its `@import`s of other stylesheets of webview/
// (relative, existing, inlined at build time) replaced by their text, so a test checks every rule the page gets.
// Any other @import (a URL, a file outside webview/, a missing one) is left in place for the test to refuse.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const WEBVIEW = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'webview');

export function bundledWebviewCss(file: string, seen: ReadonlySet<string> = new Set()): string {
  const text = readFileSync(file, 'utf8');
  return text.replace(/^@import '(\.{1,2}\/[A-Za-z0-9_./-]+\.css)';$/gm, (line, relative: string) => {
    const target = path.resolve(path.dirname(file), relative);
    const inside = target.startsWith(`${WEBVIEW}${path.sep}`);
    if (!inside || !existsSync(target) || seen.has(target)) return line;
    return bundledWebviewCss(target, new Set([...seen, file]));
  });
}
