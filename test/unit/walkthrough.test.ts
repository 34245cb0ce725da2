// The Get Started walkthrough (package.json contributes.walkthroughs): every step shows a local image that
// ships in the .vsix, and every command link it offers runs something — a command gpumem contributes, or the
// `<view id>.focus` command VS Code creates for each contributed view
// (https://code.visualstudio.com/api/references/contribution-points#contributes.walkthroughs).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';

interface WalkthroughStep {
  readonly id: string;
  readonly title: string;
  readonly description: string;
  readonly media: { readonly image?: string; readonly svg?: string; readonly markdown?: string; readonly altText?: string };
}

interface Manifest {
  readonly contributes: {
    readonly commands: readonly { readonly command: string }[];
    readonly views: Record<string, readonly { readonly id: string }[]>;
    readonly walkthroughs: readonly { readonly id: string; readonly steps: readonly WalkthroughStep[] }[];
  };
}

const root = new URL('../../', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as Manifest;
const walkthroughs = manifest.contributes.walkthroughs;
const steps = walkthroughs.flatMap((walkthrough) => walkthrough.steps);

/** The command ids of `[label](command:id)` and `[label](command:id?args)` links. */
function commandLinks(markdown: string): string[] {
  const ids: string[] = [];
  let at = markdown.indexOf('(command:');
  while (at !== -1) {
    const start = at + '(command:'.length;
    let end = start;
    while (end < markdown.length && !'?)'.includes(markdown.charAt(end))) end++;
    ids.push(markdown.slice(start, end));
    at = markdown.indexOf('(command:', end);
  }
  return ids;
}

test('there is one walkthrough with the five Get Started steps', () => {
  assert.equal(walkthroughs.length, 1);
  assert.deepEqual(
    steps.map((step) => step.id),
    ['lintManifest', 'openClusters', 'inspectNode', 'readVerdict', 'exportReport'],
  );
});

test('every step has an image under media/walkthrough/ that exists and is packaged', () => {
  const ignore = readFileSync(new URL('.vscodeignore', root), 'utf8').split('\n');
  assert.ok(ignore.includes('!media/walkthrough/**'), '.vscodeignore keeps media/walkthrough/ in the .vsix');
  for (const step of steps) {
    const image = step.media.image;
    assert.ok(image, `step ${step.id} has an image`);
    assert.match(image, /^media\/walkthrough\/[a-z-]+\.(svg|png)$/, `step ${step.id}: a local file under media/walkthrough/`);
    assert.ok(existsSync(new URL(image, root)), `step ${step.id}: ${image} exists`);
    assert.ok((step.media.altText ?? '').length > 0, `step ${step.id} describes its image`);
  }
});

test('every step offers a command link, and every link names a contributed command or a contributed view', () => {
  const commands = new Set(manifest.contributes.commands.map((c) => c.command));
  const views = Object.values(manifest.contributes.views).flatMap((list) => list.map((view) => view.id));
  for (const view of views) commands.add(`${view}.focus`);
  for (const step of steps) {
    const links = commandLinks(step.description);
    assert.ok(links.length > 0, `step ${step.id} has a command link`);
    for (const id of links) assert.ok(commands.has(id), `step ${step.id}: command:${id} is contributed`);
  }
});
