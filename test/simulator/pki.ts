// A throwaway PKI for the Kubernetes API simulator, made with the `openssl` CLI (execFile, argv arrays, no
// shell): a CA, a server certificate for 127.0.0.1 / localhost (subjectAltName), and client certificates
// whose subject carries the user the way the API server reads it: CN = user name, one O per group.
// Keys are EC P-256 (fast to make). Everything lives in one temp directory that cleanup() removes.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const OPENSSL_INSTALL = 'apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends openssl';

/** The openssl binary; installs the Debian package (as root, non-interactively) when it is missing. */
export function ensureOpenssl(): string {
  const found = ['/usr/bin/openssl', '/bin/openssl', '/usr/local/bin/openssl'].find((path) => existsSync(path));
  if (found) return found;
  if (process.getuid?.() !== 0) throw new Error(`openssl is missing; run as root: ${OPENSSL_INSTALL}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update'], { stdio: 'ignore', env });
  execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'openssl'], { stdio: 'ignore', env });
  const installed = ['/usr/bin/openssl', '/bin/openssl'].find((path) => existsSync(path));
  if (!installed) throw new Error(`openssl did not install; run: ${OPENSSL_INSTALL}`);
  return installed;
}

export interface CertPair {
  readonly certFile: string;
  readonly keyFile: string;
  /** PEM text. */
  readonly cert: string;
  readonly key: string;
}

export interface Pki {
  readonly dir: string;
  readonly caFile: string;
  /** The CA certificate, PEM. */
  readonly ca: string;
  readonly server: CertPair;
  /** A client certificate: CN = user, O = each group. */
  clientCert(user: string, groups?: readonly string[]): Promise<CertPair>;
  /** Removes the directory. Idempotent. */
  cleanup(): void;
}

// A subject RDN value: no '/', '\\', '+', '=', ',' or control characters (they would need escaping in -subj).
const SUBJECT_VALUE = /^[A-Za-z0-9 :._@-]{1,64}$/;

function subject(cn: string, organizations: readonly string[] = []): string {
  for (const value of [cn, ...organizations]) {
    if (!SUBJECT_VALUE.test(value)) throw new Error(`certificate subject value ${JSON.stringify(value)} must be 1–64 of [A-Za-z0-9 :._@-]`);
  }
  return `/CN=${cn}${organizations.map((o) => `/O=${o}`).join('')}`;
}

// A config of our own, so the system openssl.cnf cannot add or duplicate extensions.
const REQ_CONFIG = `[req]
distinguished_name = dn
prompt = no
[dn]
CN = placeholder
[v3_ca]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
`;

const SERVER_EXT = `[v3]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1,DNS:localhost
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
`;

const CLIENT_EXT = `[v3]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = clientAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
`;

const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

function serial(): string {
  return `0x${Array.from(globalThis.crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

export async function createPki(options: { readonly days?: number } = {}): Promise<Pki> {
  const openssl = ensureOpenssl();
  const dir = mkdtempSync(join(tmpdir(), 'gpumem-sim-pki-'));
  const days = String(options.days ?? 2);
  let counter = 0;
  try {
    const reqConfig = join(dir, 'req.cnf');
    writeFileSync(reqConfig, REQ_CONFIG);
    writeFileSync(join(dir, 'server-ext.cnf'), SERVER_EXT);
    writeFileSync(join(dir, 'client-ext.cnf'), CLIENT_EXT);
    const caFile = join(dir, 'ca.crt');
    const caKey = join(dir, 'ca.key');
    await run(openssl, [
      'req',
      '-x509',
      '-config',
      reqConfig,
      '-extensions',
      'v3_ca',
      ...EC,
      '-keyout',
      caKey,
      '-out',
      caFile,
      '-days',
      days,
      '-subj',
      subject('gpumem-sim-ca'),
    ]);

    const issue = async (name: string, subj: string, ext: string): Promise<CertPair> => {
      const keyFile = join(dir, `${name}.key`);
      const csr = join(dir, `${name}.csr`);
      const certFile = join(dir, `${name}.crt`);
      await run(openssl, ['req', '-new', '-config', reqConfig, ...EC, '-keyout', keyFile, '-out', csr, '-subj', subj]);
      await run(openssl, [
        'x509',
        '-req',
        '-in',
        csr,
        '-CA',
        caFile,
        '-CAkey',
        caKey,
        '-set_serial',
        serial(),
        '-days',
        days,
        '-sha256',
        '-extfile',
        join(dir, ext),
        '-extensions',
        'v3',
        '-out',
        certFile,
      ]);
      rmSync(csr, { force: true });
      return { certFile, keyFile, cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
    };

    const server = await issue('server', subject('127.0.0.1'), 'server-ext.cnf');
    let cleaned = false;
    return {
      dir,
      caFile,
      ca: readFileSync(caFile, 'utf8'),
      server,
      clientCert: (user, groups = []) => issue(`client-${++counter}`, subject(user, groups), 'client-ext.cnf'),
      cleanup: () => {
        if (cleaned) return;
        cleaned = true;
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}
