// `npm run e2e:install`: everything the end-to-end tests and `npm start` need, without running them:
// the Debian packages (chromium + code-server's build packages; apt-get as root, otherwise the exact
// sudo command is printed) and code-server 4.139.1 on Node 24 in .cache/ (once, ~2 minutes).
import path from 'node:path';
import { CHROMIUM_PATH, REPO_ROOT, assertChromium, ensureCodeServer, ensureDebianPackages } from './code-server.mjs';

try {
  await ensureDebianPackages('all');
  assertChromium();
  const codeServer = await ensureCodeServer();
  const where = codeServer.dir.startsWith(REPO_ROOT) ? path.relative(REPO_ROOT, codeServer.dir) : codeServer.dir;
  console.log(
    `e2e:install: code-server ${codeServer.installedNow ? `installed in ${codeServer.seconds} s` : 'already installed'} in ${where}/; Chromium at ${CHROMIUM_PATH}`,
  );
} catch (error) {
  console.error(`e2e:install: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
