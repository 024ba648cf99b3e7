import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A self-signed certificate for 127.0.0.1 in a folder of its own, for an https sandbox. */
export interface LocalCert {
  /** PEM files, as SIM_TLS_CERT and SIM_TLS_KEY take them; `certPath` is also the CA to trust. */
  readonly certPath: string;
  readonly keyPath: string;
  /** The certificate's PEM text, for clients of this process (`connect: { ca }`). */
  readonly cert: string;
  remove(): void;
}

/** An EC P-256 certificate for IP 127.0.0.1, valid a day (openssl from PATH). */
export function makeLocalCert(): LocalCert {
  const dir = mkdtempSync(join(tmpdir(), 'cg-tls-'));
  const certPath = join(dir, 'cert.pem');
  const keyPath = join(dir, 'key.pem');
  // openssl 3 marks a self-signed `req -x509` certificate CA:TRUE, so it can be its own trust anchor.
  execFileSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
      ...['-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-days', '1'],
      ...['-keyout', keyPath, '-out', certPath],
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  return {
    certPath,
    keyPath,
    cert: readFileSync(certPath, 'utf8'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
