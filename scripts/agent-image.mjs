// The agent image, from parts staged on this machine: no base image is pulled, so it builds where no registry can
// be reached, and the image holds only what the agent runs (distroless-like: no package manager, no shell but the
// probe's busybox).
//   node scripts/agent-image.mjs stage DIR    DIR becomes the image's root: /app/dist (the production CLI bundle,
//                                             scripts/build.mjs --cli-only), /nodejs/bin/node (the pinned Node,
//                                             devDependencies `node`) with the shared libraries `ldd` lists for it,
//                                             /usr/local/bin/busybox (Debian's busybox-static) with the probe's
//                                             applets. Every file and directory is read-only.
//   node scripts/agent-image.mjs build FILE   stages, then builds deploy/agent/Dockerfile on the staged root with
//                                             buildah (its own temporary storage) and writes the image to FILE as
//                                             an OCI archive (oci-archive:FILE:ghcr.io/gpumem/gpumem-agent:VERSION).
// The same Dockerfile builds it with docker elsewhere: `docker build -f deploy/agent/Dockerfile -t … DIR`.
// test/integration/agentImage.test.ts builds it and runs it under runc; the release workflow pushes what `build`
// wrote.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const VERSION = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
export const IMAGE = 'ghcr.io/gpumem/gpumem-agent';
/** The pinned Node's executable (devDependencies `node`, which npm ci installs). */
const PINNED_NODE = join(ROOT, 'node_modules', 'node', 'bin', 'node');
/** Debian's busybox-static. */
const BUSYBOX = '/bin/busybox';
/**
 * sh and the applets the node probe runs, as relative symlinks to busybox: every applet of the tests' fixture roots
 * (PROBE_APPLETS, test/helpers/fixtureTools.ts; a unit test checks), among them xargs and find, without which the
 * probe falls back to a process per file. busybox has no getconf, readelf or journalctl: the probe checks for each
 * (`have`) and does without.
 */
export const IMAGE_APPLETS = [
  'sh',
  'ash',
  'awk',
  'basename',
  'cat',
  'cut',
  'date',
  'dirname',
  'dmesg',
  'echo',
  'egrep',
  'env',
  'expr',
  'false',
  'find',
  'grep',
  'head',
  'hostname',
  'id',
  'ls',
  'od',
  'printf',
  'readlink',
  'sed',
  'sleep',
  'sort',
  'stat',
  'tail',
  'test',
  'timeout',
  'tr',
  'true',
  'uname',
  'uniq',
  'wc',
  'xargs',
  '[',
];

/** The libraries the dynamic loader maps for `executable` (ldd's absolute paths), the loader among them. */
function sharedLibraries(executable) {
  const listing = execFileSync('ldd', [executable], { encoding: 'utf8' });
  return [...listing.matchAll(/(\/\S+) \(0x[0-9a-f]+\)/g)].map((match) => match[1]);
}

/** Every file and directory under `dir` read-only (symlinks have no mode of their own). */
function makeReadOnly(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isSymbolicLink()) continue;
    if (entry.isDirectory()) makeReadOnly(path);
    else chmodSync(path, lstatSync(path).mode & 0o111 ? 0o555 : 0o444);
  }
  chmodSync(dir, 0o555);
}

export function stage(dir) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs'), '--production', '--cli-only', join(dir, 'app', 'dist')], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  mkdirSync(join(dir, 'nodejs', 'bin'), { recursive: true });
  copyFileSync(PINNED_NODE, join(dir, 'nodejs', 'bin', 'node'));
  for (const library of sharedLibraries(PINNED_NODE)) {
    mkdirSync(join(dir, dirname(library)), { recursive: true });
    copyFileSync(library, join(dir, library));
  }
  const bin = join(dir, 'usr', 'local', 'bin');
  mkdirSync(bin, { recursive: true });
  copyFileSync(BUSYBOX, join(bin, 'busybox'));
  for (const applet of IMAGE_APPLETS) symlinkSync('busybox', join(bin, applet));
  makeReadOnly(dir);
}

/** Stages and builds the image with buildah into an OCI archive at `file`; returns the image reference. */
export function build(file) {
  const work = mkdtempSync(join(tmpdir(), 'gpumem-agent-image-'));
  const reference = `${IMAGE}:${VERSION}`;
  try {
    const staged = join(work, 'root');
    stage(staged);
    const storage = ['--root', join(work, 'storage'), '--runroot', join(work, 'run'), '--storage-driver', 'vfs'];
    const dockerfile = join(ROOT, 'deploy', 'agent', 'Dockerfile');
    // --timestamp 0: the same parts give the same image.
    execFileSync(
      'buildah',
      [...storage, 'build', '--quiet', '--layers=false', '--timestamp', '0', '-f', dockerfile, '-t', reference, staged],
      {
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    rmSync(file, { force: true });
    execFileSync('buildah', [...storage, 'push', '--quiet', reference, `oci-archive:${resolve(file)}:${reference}`], { stdio: 'inherit' });
    return reference;
  } finally {
    // vfs layers are plain directories; the staged root is read-only, so make it removable first.
    execFileSync('chmod', ['-R', 'u+w', work]);
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [command, target] = process.argv.slice(2);
  if (command === 'stage' && target) stage(resolve(target));
  else if (command === 'build' && target) console.log(`${build(target)} -> ${resolve(target)}`);
  else {
    console.error('Usage: node scripts/agent-image.mjs stage DIR | build FILE.tar');
    process.exit(2);
  }
}
