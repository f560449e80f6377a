/** Splitting and joining PEM certificate lists (a bundle is several CERTIFICATE blocks). */
import { X509Certificate } from 'node:crypto';

const CERTIFICATE_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/** The parseable certificates of a PEM text, in order; broken blocks are skipped. */
export function parseCertificates(pem: string | undefined): X509Certificate[] {
  if (!pem) return [];
  const certificates: X509Certificate[] = [];
  for (const block of pem.match(CERTIFICATE_BLOCK) ?? []) {
    try {
      certificates.push(new X509Certificate(block));
    } catch {
      // A corrupt block is dropped; the renewer rewrites the bundle without it.
    }
  }
  return certificates;
}

export function joinCertificates(certificates: readonly X509Certificate[]): string {
  return certificates.map((certificate) => certificate.toString().trimEnd() + '\n').join('');
}
