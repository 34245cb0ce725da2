// Assembles the public-manifest corpus (test/fixtures/manifests/public/README.md): for every file that
// corpus.json lists, takes the blob at the pinned commit from the project's fetched snapshot and writes it to
// .cache/public-corpus/<owner>/<name>/<path> (a Markdown page's YAML block k: <path>.block<k>.yaml), checking that the blob is the one the labels were made on.
// Nothing fetched is committed; only corpus.json (provenance and labels) is.
//
//   npm run corpus:assemble                       # snapshots from /work/.mirror/<owner>+<name>/repo
//   GPUMEM_MIRROR=/elsewhere npm run corpus:assemble
//   node scripts/corpus/assemble.mjs --out DIR    # another destination
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { assembledPath, yamlBlocks } from './markdownBlocks.mjs';

const ROOT = new URL('../../', import.meta.url).pathname;
const CORPUS = join(ROOT, 'test/fixtures/manifests/public/corpus.json');
const MIRROR = process.env.GPUMEM_MIRROR ?? '/work/.mirror';
const outIndex = process.argv.indexOf('--out');
const OUT = resolve(outIndex > 0 ? process.argv[outIndex + 1] : join(ROOT, '.cache/public-corpus'));

function git(gitDir, args, input) {
  return execFileSync('git', ['--git-dir', gitDir, ...args], { input, maxBuffer: 256 << 20 });
}

const corpus = JSON.parse(readFileSync(CORPUS, 'utf8'));
// Written beside OUT and moved into place only when every file was found: a corpus with files missing (some
// snapshots on this machine, not all) is no corpus, and the test skips instead of failing on the gaps.
const STAGING = `${OUT}.partial-${process.pid}`;
rmSync(STAGING, { recursive: true, force: true });
const problems = [];
let written = 0;
for (const project of corpus.projects) {
  const gitDir = join(MIRROR, project.repo.replace('/', '+'), 'repo');
  if (!existsSync(gitDir)) {
    problems.push(`${project.repo}: no snapshot at ${gitDir} (bring it with the fetch tool, github:${project.repo})`);
    continue;
  }
  try {
    git(gitDir, ['cat-file', '-e', `${project.commit}^{commit}`]);
  } catch {
    problems.push(`${project.repo}: commit ${project.commit} is not in ${gitDir}`);
    continue;
  }
  // One `git cat-file --batch-check` for the whole project instead of a process per file.
  const specs = project.files.map((file) => `${project.commit}:${file.path}`).join('\n') + '\n';
  const checks = git(gitDir, ['cat-file', '--batch-check=%(objectname) %(objecttype)'], specs).toString('utf8').trim().split('\n');
  project.files.forEach((file, i) => {
    const [sha, type] = (checks[i] ?? '').split(' ');
    if (type !== 'blob') problems.push(`${project.repo}:${file.path}: missing at ${project.commit}`);
    else if (sha !== file.blob) problems.push(`${project.repo}:${file.path}: blob ${sha}, labelled ${file.blob}`);
    else {
      const target = join(STAGING, assembledPath(project.repo, file.path, file.block));
      const bytes = git(gitDir, ['cat-file', 'blob', sha]);
      const text = file.block === undefined ? bytes : yamlBlocks(bytes.toString('utf8'))[file.block];
      if (text === undefined) problems.push(`${project.repo}:${file.path}: no YAML block ${file.block}`);
      else {
        mkdirSync(dirname(target), { recursive: true });
        writeFileSync(target, text);
        written++;
      }
    }
  });
}
if (problems.length === 0) {
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(dirname(OUT), { recursive: true });
  renameSync(STAGING, OUT);
  console.log(`${written} files written to ${OUT}`);
} else {
  rmSync(STAGING, { recursive: true, force: true });
  console.log(`not assembled: ${problems.length} problems (${written} of the files were found); ${OUT} left as it was`);
}
for (const problem of problems) console.error(problem);
process.exitCode = problems.length > 0 ? 1 : 0;
