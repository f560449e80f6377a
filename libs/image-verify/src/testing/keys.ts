import { generateKeyPairSync } from 'node:crypto';

export type TestKeyKind = 'ecdsa-p256' | 'ecdsa-p384' | 'ecdsa-p521' | 'rsa' | 'ed25519';

const CURVES = { 'ecdsa-p256': 'prime256v1', 'ecdsa-p384': 'secp384r1', 'ecdsa-p521': 'secp521r1' } as const;

/** A fresh key pair as PEM (SPKI public, PKCS#8 private), as `cosign generate-key-pair` would give. */
export function generateKeyPair(kind: TestKeyKind = 'ecdsa-p256'): { publicKeyPem: string; privateKeyPem: string } {
  const pair = generate(kind);
  return { publicKeyPem: pair.publicKey, privateKeyPem: pair.privateKey };
}

function generate(kind: TestKeyKind): { publicKey: string; privateKey: string } {
  const pair =
    kind === 'rsa'
      ? generateKeyPairSync('rsa', { modulusLength: 2048 })
      : kind === 'ed25519'
        ? generateKeyPairSync('ed25519')
        : generateKeyPairSync('ec', { namedCurve: CURVES[kind] });
  return {
    publicKey: pair.publicKey.export({ type: 'spki', format: 'pem' }) as string,
    privateKey: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
  };
}
