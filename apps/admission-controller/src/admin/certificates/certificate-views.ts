/** Public facts of PEM certificates, for `GET /admin/certificates`. */
import { X509Certificate } from 'node:crypto';
import type { TlsSnapshot } from '@edict/cert';
import type { CertificateDto, CertificatesDto } from './certificates.dto';

const CERTIFICATE_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

export interface RenewalWindows {
  readonly renewBeforeMs: number;
  readonly caRenewBeforeMs: number;
  readonly checkIntervalMs: number;
  readonly caSecret: string;
  readonly servingSecret: string;
}

export function certificatesView(
  snapshot: TlsSnapshot | undefined,
  windows: RenewalWindows,
  lastError?: string,
): CertificatesDto {
  const serving = certificatesOf(snapshot?.certChainPem)[0];
  const ca = certificatesOf(snapshot?.caBundlePem);
  const servingView = serving ? certificateView(serving, windows.renewBeforeMs) : undefined;
  const caViews = ca.map((certificate) => certificateView(certificate, windows.caRenewBeforeMs));
  // The newest CA is the signer that matters; older ones stay only until they expire.
  const due = [servingView?.renewalDueAt, caViews.at(-1)?.renewalDueAt].filter((at): at is string => !!at).sort();
  return {
    ready: snapshot !== undefined,
    ...(snapshot ? { version: snapshot.version } : {}),
    ...(lastError ? { lastError } : {}),
    ...(servingView ? { serving: servingView } : {}),
    ca: caViews,
    caSecret: windows.caSecret,
    servingSecret: windows.servingSecret,
    renewBeforeMs: windows.renewBeforeMs,
    caRenewBeforeMs: windows.caRenewBeforeMs,
    checkIntervalMs: windows.checkIntervalMs,
    ...(due[0] ? { nextRenewalAt: due[0] } : {}),
  };
}

export function certificateView(certificate: X509Certificate, renewBeforeMs: number): CertificateDto {
  const notAfter = new Date(certificate.validTo);
  return {
    subject: oneLine(certificate.subject),
    issuer: oneLine(certificate.issuer),
    serialNumber: certificate.serialNumber,
    subjectAltNames: certificate.subjectAltName ? certificate.subjectAltName.split(/,\s*/) : [],
    notBefore: new Date(certificate.validFrom).toISOString(),
    notAfter: notAfter.toISOString(),
    fingerprint256: certificate.fingerprint256,
    isCa: certificate.ca,
    renewalDueAt: new Date(notAfter.getTime() - renewBeforeMs).toISOString(),
  };
}

function certificatesOf(pem: string | undefined): X509Certificate[] {
  return (pem?.match(CERTIFICATE_BLOCK) ?? []).flatMap((block) => {
    try {
      return [new X509Certificate(block)];
    } catch {
      return [];
    }
  });
}

/** Node prints distinguished names one attribute per line. */
const oneLine = (name: string) => name.split('\n').filter(Boolean).join(', ');
