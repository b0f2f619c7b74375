// A throwaway certificate for a simulator served over HTTPS (serveSimulator's `tls`), made with
// the system's openssl. Whoever connects must trust it: a gateway process is started with
// NODE_EXTRA_CA_CERTS=<certPath> (Node reads it once, at start-up).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SimulatorTls } from './http.ts';

export interface SelfSigned extends SimulatorTls {
  /** the certificate's PEM file, for NODE_EXTRA_CA_CERTS */
  certPath: string;
  /** the folder holding the key and the certificate */
  dir: string;
}

/** A P-256 certificate for 127.0.0.1 (and localhost), valid for two days, in a new folder under `parent`. */
export function selfSignedCertificate(parent = tmpdir()): SelfSigned {
  const dir = mkdtempSync(join(parent, 'modelgate-sim-tls-'));
  const keyPath = join(dir, 'key.pem');
  const certPath = join(dir, 'cert.pem');
  execFileSync('openssl', [
    ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2'],
    ...['-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost', '-keyout', keyPath, '-out', certPath],
  ], { stdio: 'ignore' });
  return { key: readFileSync(keyPath), cert: readFileSync(certPath), certPath, dir };
}
