// Every picture of media/ that README.md or docs/ shows is one the end-to-end run writes from the current build
// (issue #16): it is listed in test/e2e/harness/readmeMedia.ts, whose spec publishes it. A new screenshot added to
// the README by hand, or a spec that stops publishing, fails here instead of going stale.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { REPO_ROOT } from '../e2e/harness/paths.ts';
import { README_SCREENSHOTS } from '../e2e/harness/readmeMedia.ts';

/** README.md and every Markdown file under docs/. */
function markdownFiles(): string[] {
  const found = [path.join(REPO_ROOT, 'README.md')];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.md')) found.push(full);
    }
  };
  walk(path.join(REPO_ROOT, 'docs'));
  return found;
}

/** The media/ files a Markdown file shows: `![alt](media/x.png)` or `../media/x.png` from docs/, and `<img src=…>`. */
function mediaImages(markdown: string): string[] {
  const images: string[] = [];
  for (const line of markdown.split('\n')) {
    for (const [, target] of line.matchAll(/!\[[^\]\n]*\]\(([^)\s]+)/g)) if (target) images.push(target);
    for (const [, target] of line.matchAll(/<img\s[^>]*src="([^"]+)"/g)) if (target) images.push(target);
  }
  return images.map((target) => /(?:^|\/)media\/([^?#]+)$/.exec(target)?.[1]).filter((file): file is string => file !== undefined);
}

describe('README screenshots come from the end-to-end run', () => {
  test('mediaImages finds Markdown images and <img> tags under media/, and nothing else', () => {
    assert.deepEqual(
      mediaImages(
        '![a](media/one.png) text ![b](../media/sub/two.png)\n<img alt="x" src="media/three.png">\n[link](media/four.png) ![c](https://x/y.png)',
      ),
      ['one.png', 'sub/two.png', 'three.png'],
    );
  });

  test('every media/ picture of README.md and docs/*.md is published by an e2e spec', () => {
    const published = new Map<string, string>(Object.values(README_SCREENSHOTS).map((entry) => [entry.file, entry.spec]));
    const shown = new Set<string>();
    for (const file of markdownFiles()) {
      for (const image of mediaImages(readFileSync(file, 'utf8'))) {
        shown.add(image);
        assert.ok(
          published.has(image),
          `${path.relative(REPO_ROOT, file)} shows media/${image}, which no e2e scenario writes: capture it in a spec and list it in test/e2e/harness/readmeMedia.ts`,
        );
      }
    }
    assert.deepEqual(
      [...published.keys()].filter((file) => !shown.has(file)),
      [],
      'every published screenshot is shown',
    );
  });

  test('each listed spec publishes its picture, and the picture is in the repository', () => {
    for (const [which, { file, spec }] of Object.entries(README_SCREENSHOTS)) {
      const text = readFileSync(path.join(REPO_ROOT, 'test', 'e2e', spec), 'utf8');
      // The inspector spec publishes its three themes through one call, the theme in a template literal.
      const theme = /^inspector-(.+)$/.exec(which)?.[1];
      const call = theme ? /publishScreenshot\(.*`inspector-\$\{theme\}`\)/ : new RegExp(`publishScreenshot\\(.*'${which}'\\)`);
      assert.match(text, call, `${spec} publishes ${which}`);
      if (theme) assert.ok(text.includes(`'${theme}'`), `${spec} has a ${theme} theme session`);
      assert.ok(statSync(path.join(REPO_ROOT, 'media', file)).size > 10_000, `media/${file} is a real picture`);
    }
  });
});
