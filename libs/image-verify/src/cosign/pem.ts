import { createPublicKey, type KeyObject } from 'node:crypto';
import { X509Certificate } from '@sigstore/core';
import { errorMessage } from '@edict/foundation';
import { ImageVerificationError } from '../errors';
import { MAX_PEM_LENGTH } from './constants';

const CERTIFICATE_BLOCK = /-----BEGIN CERTIFICATE-----[A-Za-z0-9+/=\s]*?-----END CERTIFICATE-----/g;

/** A PEM value of the policy, or its base64 (Kyverno accepts both for certificates). */
function pemText(value: string, field: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw new ImageVerificationError('is empty', { field });
  if (value.length > MAX_PEM_LENGTH)
    throw new ImageVerificationError(`is longer than ${MAX_PEM_LENGTH} characters`, { field });
  if (value.includes('-----BEGIN')) return value;
  const decoded = Buffer.from(value.trim(), 'base64').toString('utf8');
  return decoded.includes('-----BEGIN') ? decoded : value;
}

/** A PEM public key cosign accepts: ECDSA P-256/384/521, RSA, Ed25519. */
export function parsePublicKey(value: string, field: string): KeyObject {
  const text = pemText(value, field);
  let key: KeyObject;
  try {
    key = createPublicKey({ key: text, format: 'pem' });
  } catch (error) {
    throw new ImageVerificationError(`is not a PEM public key: ${errorMessage(error)}`, { field });
  }
  const type = key.asymmetricKeyType;
  if (type === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve !== 'prime256v1' && curve !== 'secp384r1' && curve !== 'secp521r1')
      throw new ImageVerificationError(`ECDSA curve ${curve ?? 'unknown'} is not supported (P-256, P-384, P-521)`, {
        field,
      });
  } else if (type !== 'rsa' && type !== 'rsa-pss' && type !== 'ed25519') {
    throw new ImageVerificationError(`key type ${type ?? 'unknown'} is not supported (ECDSA, RSA, Ed25519)`, { field });
  }
  return key;
}

/** Every certificate of a PEM bundle, in order; at least one. */
export function parseCertificates(value: string, field: string): X509Certificate[] {
  const text = pemText(value, field);
  const blocks = text.match(CERTIFICATE_BLOCK) ?? [];
  if (blocks.length === 0) throw new ImageVerificationError('holds no PEM certificate', { field });
  return blocks.map((block, index) => {
    try {
      return X509Certificate.parse(block);
    } catch (error) {
      throw new ImageVerificationError(`certificate ${index} does not parse: ${errorMessage(error)}`, { field });
    }
  });
}

/** Certificates from a signature's annotation: undefined when they do not parse (the signature then fails). */
export function certificatesFromAnnotation(value: string): X509Certificate[] | undefined {
  if (value.length > MAX_PEM_LENGTH) return undefined;
  try {
    const blocks = value.match(CERTIFICATE_BLOCK) ?? [];
    return blocks.length === 0 ? undefined : blocks.map((block) => X509Certificate.parse(block));
  } catch {
    return undefined;
  }
}
