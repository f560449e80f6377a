/**
 * The renewal decisions, pure functions of the parsed Secrets, the time and the options.
 *
 * CA: a new CA is appended to the bundle when the signer is missing, unusable or within
 * `caRenewBeforeMs` of expiry; old CAs stay until they expire (a leaf never outlives its CA, so by
 * then none of their leaves is served); expired entries are pruned.
 *
 * Leaf: issued at once when there is nothing usable to serve (missing, wrong key, expired, not
 * signed by a CA in the bundle). Otherwise a renewal that is due (near expiry, names or key type
 * changed, signed by an older CA) waits until the signer has been in the bundle for
 * `caPropagationMs`, so clients hold the new CA before any certificate it signs is served.
 */
import type { X509Certificate } from 'node:crypto';
import type { ResolvedCertOptions } from '../cert.options';
import { issuedBy, notAfter, type CaState, type LeafState } from './cert-state';

export type CaDecision =
  | { readonly action: 'keep'; readonly reason: string }
  | { readonly action: 'create' | 'rotate'; readonly reason: string; readonly keep: readonly X509Certificate[] }
  | { readonly action: 'prune'; readonly reason: string; readonly keep: readonly X509Certificate[] }
  | { readonly action: 'blocked'; readonly reason: string };

export type LeafDecision =
  | { readonly action: 'keep'; readonly reason: string }
  | { readonly action: 'issue'; readonly reason: string }
  | { readonly action: 'defer'; readonly reason: string; readonly until: Date }
  | { readonly action: 'blocked'; readonly reason: string };

type Timing = Pick<ResolvedCertOptions, 'caRenewBeforeMs' | 'renewBeforeMs' | 'caPropagationMs'>;
type Naming = Pick<ResolvedCertOptions, 'dnsNames' | 'ipAddresses' | 'keyAlgorithm'>;

export function planCa(state: CaState, now: Date, options: Timing): CaDecision {
  const time = now.getTime();
  const live = state.bundle.filter((certificate) => notAfter(certificate) > time);
  const signer = state.signer;
  let need: string | undefined;
  if (!state.secret) need = 'no CA secret';
  else if (!signer) need = 'no CA in the bundle matches tls.key';
  else if (notAfter(signer) <= time) need = 'the CA expired';
  else if (notAfter(signer) - time <= options.caRenewBeforeMs) need = 'the CA is about to expire';

  if (need && !state.managed) {
    return { action: 'blocked', reason: `${need}, but the CA secret is not managed by edict` };
  }
  if (need) return { action: state.secret ? 'rotate' : 'create', reason: need, keep: live };
  if (live.length < state.bundle.length || parseCount(state) > state.bundle.length) {
    if (!state.managed) return { action: 'keep', reason: 'the CA secret is not managed by edict' };
    return { action: 'prune', reason: 'expired or invalid entries in the CA bundle', keep: live };
  }
  return { action: 'keep', reason: 'the CA is valid' };
}

/** Blocks in tls.crt, counting ones parseCertificates or the CA filter dropped. */
function parseCount(state: CaState): number {
  return (state.secret?.data['tls.crt']?.match(/-----BEGIN CERTIFICATE-----/g) ?? []).length;
}

export function planLeaf(leaf: LeafState, ca: CaState, now: Date, options: Timing & Naming): LeafDecision {
  const time = now.getTime();
  const certificate = leaf.certificate;
  const liveCas = ca.bundle.filter((entry) => notAfter(entry) > time);
  let urgent: string | undefined;
  if (!leaf.secret) urgent = 'no TLS pair secret';
  else if (!certificate) urgent = 'no certificate in the TLS pair';
  else if (!leaf.keyMatches) urgent = 'tls.key does not match tls.crt';
  else if (notAfter(certificate) <= time) urgent = 'the certificate expired';
  else if (!liveCas.some((entry) => issuedBy(certificate, entry)))
    urgent = 'the certificate is not signed by a CA in the bundle';

  let due: string | undefined;
  if (!urgent && certificate) {
    if (notAfter(certificate) - time <= options.renewBeforeMs) due = 'the certificate is about to expire';
    else if (!namesMatch(certificate, options)) due = 'the certificate names differ from the configuration';
    else if (leaf.keyAlgorithm !== options.keyAlgorithm) due = `the key is not ${options.keyAlgorithm}`;
    else if (ca.signer && !issuedBy(certificate, ca.signer)) due = 'the certificate is signed by an older CA';
  }
  const reason = urgent ?? due;
  if (!reason) return { action: 'keep', reason: 'the certificate is valid' };
  if (!leaf.managed) return { action: 'blocked', reason: `${reason}, but the TLS pair secret is not managed by edict` };
  if (!ca.signer || notAfter(ca.signer) <= time)
    return { action: 'blocked', reason: `${reason}, but there is no usable CA` };
  if (urgent) return { action: 'issue', reason };

  const propagatedAt = (ca.signerAddedAt?.getTime() ?? 0) + options.caPropagationMs;
  // Clients already trust the signer of the served certificate; a new issuer must wait, but
  // waiting must not let the served certificate lapse.
  const sameIssuer = issuedBy(certificate!, ca.signer);
  if (!sameIssuer && propagatedAt > time && notAfter(certificate!) > propagatedAt) {
    return {
      action: 'defer',
      reason: `${reason}; waiting for the new CA to reach every client`,
      until: new Date(propagatedAt),
    };
  }
  return { action: 'issue', reason };
}

/** Exactly the configured DNS names and IPs (Node prints SANs as "DNS:a, IP Address:1.2.3.4"). */
export function namesMatch(certificate: X509Certificate, options: Naming): boolean {
  const entries = (certificate.subjectAltName ?? '').split(', ').filter(Boolean);
  const dns = entries.filter((entry) => entry.startsWith('DNS:')).map((entry) => entry.slice(4));
  const ips = entries.filter((entry) => entry.startsWith('IP Address:'));
  return (
    dns.length === options.dnsNames.length &&
    options.dnsNames.every((name) => dns.includes(name)) &&
    ips.length === options.ipAddresses.length &&
    options.ipAddresses.every((ip) => certificate.checkIP(ip) !== undefined)
  );
}

/** The earliest time a decision may change without anyone writing: for the app's scheduler. */
export function nextCheckAt(ca: CaState, leaf: LeafState, now: Date, options: Timing): Date | undefined {
  const times: number[] = [];
  for (const entry of ca.bundle) times.push(notAfter(entry));
  if (ca.signer) {
    times.push(notAfter(ca.signer) - options.caRenewBeforeMs);
    if (ca.signerAddedAt) times.push(ca.signerAddedAt.getTime() + options.caPropagationMs);
  }
  if (leaf.certificate) times.push(notAfter(leaf.certificate) - options.renewBeforeMs, notAfter(leaf.certificate));
  const future = times.filter((time) => time > now.getTime());
  return future.length ? new Date(Math.min(...future)) : undefined;
}
