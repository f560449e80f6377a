/**
 * Key algorithms for the CA and the serving certificate, as WebCrypto parameters. PEM keys are
 * always PKCS#8 ("PRIVATE KEY"), which Node's TLS accepts for all three.
 */
import { createPrivateKey, webcrypto, type KeyObject } from 'node:crypto';

export const KEY_ALGORITHMS = ['ECDSA-P256', 'RSA-2048', 'Ed25519'] as const;
export type KeyAlgorithm = (typeof KEY_ALGORITHMS)[number];

type CryptoKey = webcrypto.CryptoKey;
type Algorithm = webcrypto.Algorithm;
type EcdsaParams = webcrypto.EcdsaParams;
const subtle = webcrypto.subtle;

type Params = {
  readonly generate: webcrypto.EcKeyGenParams | webcrypto.RsaHashedKeyGenParams | Algorithm;
  readonly signing: EcdsaParams | Algorithm;
};

const PARAMS: Record<KeyAlgorithm, Params> = {
  'ECDSA-P256': {
    generate: { name: 'ECDSA', namedCurve: 'P-256' },
    signing: { name: 'ECDSA', hash: 'SHA-256' } as EcdsaParams,
  },
  'RSA-2048': {
    generate: {
      name: 'RSASSA-PKCS1-v1_5',
      modulusLength: 2048,
      publicExponent: new Uint8Array([1, 0, 1]),
      hash: 'SHA-256',
    } as webcrypto.RsaHashedKeyGenParams,
    signing: { name: 'RSASSA-PKCS1-v1_5' },
  },
  Ed25519: { generate: { name: 'Ed25519' }, signing: { name: 'Ed25519' } },
};

export function signingAlgorithmOf(algorithm: KeyAlgorithm): Algorithm {
  return PARAMS[algorithm].signing;
}

export async function generateKeyPair(algorithm: KeyAlgorithm): Promise<webcrypto.CryptoKeyPair> {
  return (await subtle.generateKey(PARAMS[algorithm].generate, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
}

/** The algorithm of a Node key, or undefined when it is none of ours (e.g. P-384). */
export function keyAlgorithmOf(key: KeyObject): KeyAlgorithm | undefined {
  switch (key.asymmetricKeyType) {
    case 'ec':
      return key.asymmetricKeyDetails?.namedCurve === 'prime256v1' ? 'ECDSA-P256' : undefined;
    case 'rsa':
      return key.asymmetricKeyDetails?.modulusLength === 2048 ? 'RSA-2048' : undefined;
    case 'ed25519':
      return 'Ed25519';
    default:
      return undefined;
  }
}

/** Reads a PEM private key (PKCS#8, SEC1 or PKCS#1) into a WebCrypto signing key. */
export async function importSigningKey(pem: string): Promise<{ key: CryptoKey; algorithm: KeyAlgorithm }> {
  const keyObject = createPrivateKey(pem);
  const algorithm = keyAlgorithmOf(keyObject);
  if (!algorithm) {
    throw new Error(`unsupported CA key type ${keyObject.asymmetricKeyType ?? 'unknown'}`);
  }
  const der = keyObject.export({ type: 'pkcs8', format: 'der' });
  const key = await subtle.importKey('pkcs8', der, PARAMS[algorithm].generate, false, ['sign']);
  return { key, algorithm };
}

export async function privateKeyToPem(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await subtle.exportKey('pkcs8', key));
  return toPem('PRIVATE KEY', der);
}

export function toPem(label: string, der: Buffer): string {
  const body = der.toString('base64').replace(/.{1,64}/g, '$&\n');
  return `-----BEGIN ${label}-----\n${body}-----END ${label}-----\n`;
}
