// Which gpumem the GitHub Action and the pre-commit hook run: an npm package spec for `npx --package`. By default
// the version of the checkout they come from (the action's tag, the hook's `rev`), so a pinned action or hook
// runs the CLI of the same release; a `version` may be another npm version or range, or the path of a tarball
// (`node scripts/pack-cli.mjs`), which is how CI runs them against the package it just built.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const CHECKOUT_VERSION = JSON.parse(readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8')).version;

/** `gpumem@<version>`, or the tarball's path as given; refuses what npx would read as an option or a URL. */
export function packageSpec(version) {
  const wanted = (version ?? '').trim();
  if (wanted === '') return `gpumem@${CHECKOUT_VERSION}`;
  if (wanted.endsWith('.tgz') && (wanted.startsWith('/') || wanted.startsWith('./') || wanted.startsWith('../'))) return wanted;
  if (/^[\w.^~<>=* |-]+$/.test(wanted) && !wanted.startsWith('-')) return `gpumem@${wanted}`;
  throw new Error(`version "${wanted}" is neither an npm version of gpumem nor the path of a .tgz`);
}
