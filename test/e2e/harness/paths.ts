import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const ARTIFACTS_DIR = path.join(REPO_ROOT, 'test-artifacts');
export const FIXTURES_DIR = path.join(REPO_ROOT, 'test', 'e2e', 'fixtures');
