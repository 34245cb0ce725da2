// The README's screenshots (media/screenshot-*.png) are copies of what an end-to-end scenario captured from the
// packaged extension, written on every run, so that no picture shows an older build than the code (issue #16).
// test/unit/readmeScreenshots.test.ts fails when README.md or docs/ shows a picture of media/ missing here.
import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { REPO_ROOT } from './paths.ts';

export const MEDIA_DIR = path.join(REPO_ROOT, 'media');

/** Each README picture: its file in media/ and the spec (test/e2e/) whose scenario writes it. */
export const README_SCREENSHOTS = {
  lint: { file: 'screenshot-lint.png', spec: 'lint.e2e.test.ts' },
  clusters: { file: 'screenshot-clusters.png', spec: 'clusters.e2e.test.ts' },
  'inspector-dark': { file: 'screenshot-inspector-dark.png', spec: 'inspector.e2e.test.ts' },
  'inspector-light': { file: 'screenshot-inspector-light.png', spec: 'inspector.e2e.test.ts' },
  'inspector-hc': { file: 'screenshot-inspector-hc.png', spec: 'inspector.e2e.test.ts' },
  fleet: { file: 'screenshot-fleet.png', spec: 'fleet.e2e.test.ts' },
  rightsizing: { file: 'screenshot-rightsizing.png', spec: 'rightsizing.e2e.test.ts' },
  live: { file: 'screenshot-live.png', spec: 'live.e2e.test.ts' },
} as const;

export type ReadmeScreenshot = keyof typeof README_SCREENSHOTS;

/** Copies a screenshot of this run over the README's picture `which`; returns the media path. */
export async function publishScreenshot(shot: string, which: ReadmeScreenshot): Promise<string> {
  await mkdir(MEDIA_DIR, { recursive: true });
  const target = path.join(MEDIA_DIR, README_SCREENSHOTS[which].file);
  await copyFile(shot, target);
  return target;
}
