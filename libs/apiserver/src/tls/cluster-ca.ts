/**
 * The cluster's certificate authority, as kubeadm sets one up: it signs the API server's serving
 * certificate, is what the server trusts client certificates from, and signs the client
 * certificates of approved `kubernetes.io/kube-apiserver-client` CSRs (kube-controller-manager's
 * signer uses the cluster CA by default). ECDSA P-256 keys (cheap handshakes); a request's own key
 * type is kept when signing it.
 */
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const HOUR_MS = 3600 * 1000;
const CA_VALIDITY_MS = 10 * 365 * 24 * HOUR_MS;

/** A certificate and its private key, PEM. */
export interface CertifiedKey {
  readonly certPem: string;
  readonly keyPem: string;
}

export interface ClusterCa {
  readonly certificatePem: string;
  /** A serving certificate for the given host names and IP addresses. */
  serving(names: { dns: readonly string[]; ips: readonly string[] }): Promise<CertifiedKey>;
  /** A client certificate and key for a user (CN) and its groups (O), as kubeadm's admin one. */
  client(user: { username: string; groups: readonly string[] }): Promise<CertifiedKey>;
  /**
   * A client certificate for a PKCS#10 request (PEM or DER): its subject and public key, client
   * authentication only, valid `seconds` from now (never past the CA).
   */
  signClient(request: string | Uint8Array, seconds: number): Promise<string>;
}

export async function createClusterCa(commonName = 'kubernetes'): Promise<ClusterCa> {
  const keys = await generateKeys();
  const now = Date.now();
  const notAfter = new Date(now + CA_VALIDITY_MS);
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=${commonName}`,
    notBefore: new Date(now - HOUR_MS),
    notAfter,
    keys,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment,
        true,
      ),
    ],
  });
  const issue = (
    subject: string,
    publicKey: x509.PublicKey | webcrypto.CryptoKey,
    validUntil: Date,
    extensions: x509.Extension[],
  ) =>
    x509.X509CertificateGenerator.create({
      serialNumber: serial(),
      subject,
      issuer: ca.subject,
      notBefore: new Date(Date.now() - HOUR_MS),
      notAfter: validUntil < notAfter ? validUntil : notAfter,
      publicKey,
      signingKey: keys.privateKey,
      signingAlgorithm: ALGORITHM,
      extensions: [new x509.BasicConstraintsExtension(false, undefined, true), ...extensions],
    });
  return {
    certificatePem: ca.toString('pem'),
    async serving({ dns, ips }) {
      const leafKeys = await generateKeys();
      const leaf = await issue(`CN=${dns[0] ?? ips[0] ?? 'kube-apiserver'}`, leafKeys.publicKey, notAfter, [
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
        new x509.SubjectAlternativeNameExtension([
          ...dns.map((value) => ({ type: 'dns' as const, value })),
          ...ips.map((value) => ({ type: 'ip' as const, value })),
        ]),
      ]);
      return { certPem: leaf.toString('pem'), keyPem: await privateKeyPem(leafKeys.privateKey) };
    },
    async client({ username, groups }) {
      const leafKeys = await generateKeys();
      const subject = new x509.Name([...groups.map((group) => ({ O: [group] })), { CN: [username] }]);
      const leaf = await issue(subject.toString(), leafKeys.publicKey, notAfter, clientExtensions());
      return { certPem: leaf.toString('pem'), keyPem: await privateKeyPem(leafKeys.privateKey) };
    },
    async signClient(request, seconds) {
      const csr = new x509.Pkcs10CertificateRequest(request);
      if (!(await csr.verify())) throw new Error('the certificate request is not signed by its own key');
      const leaf = await issue(csr.subject, csr.publicKey, new Date(Date.now() + seconds * 1000), clientExtensions());
      return leaf.toString('pem');
    },
  };
}

function clientExtensions(): x509.Extension[] {
  return [
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
    new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]),
  ];
}

async function generateKeys(): Promise<webcrypto.CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
}

async function privateKeyPem(key: webcrypto.CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key));
  const body = der
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .trimEnd();
  return `-----BEGIN PRIVATE KEY-----\n${body}\n-----END PRIVATE KEY-----\n`;
}

function serial(): string {
  return `01${Buffer.from(webcrypto.getRandomValues(new Uint8Array(15))).toString('hex')}`;
}
