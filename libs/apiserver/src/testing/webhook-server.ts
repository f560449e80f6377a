/**
 * Test helpers for admission webhooks: a throwaway CA (ECDSA P-256, @peculiar/x509) and an HTTPS
 * webhook server on 127.0.0.1 that records the AdmissionReviews it receives.
 */
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import * as x509 from '@peculiar/x509';
import type { JsonObject } from '@edict/foundation';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY = 24 * 3600 * 1000;

export interface TestCa {
  readonly certificatePem: string;
  /** `clientConfig.caBundle`: the CA certificate, base64-encoded PEM. */
  readonly caBundle: string;
  issue(names: { dns?: readonly string[]; ips?: readonly string[] }): Promise<{ cert: string; key: string }>;
}

async function privateKeyPem(key: webcrypto.CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key));
  return `-----BEGIN PRIVATE KEY-----\n${der
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .trimEnd()}\n-----END PRIVATE KEY-----\n`;
}

function serial(): string {
  return `01${Buffer.from(webcrypto.getRandomValues(new Uint8Array(15))).toString('hex')}`;
}

export async function createTestCa(commonName = 'edict-test-ca'): Promise<TestCa> {
  const keys = (await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const now = Date.now();
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=${commonName}`,
    notBefore: new Date(now - DAY),
    notAfter: new Date(now + DAY),
    keys,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.digitalSignature, true),
    ],
  });
  const certificatePem = ca.toString('pem');
  return {
    certificatePem,
    caBundle: Buffer.from(certificatePem).toString('base64'),
    async issue({ dns = [], ips = [] }) {
      const leafKeys = (await webcrypto.subtle.generateKey(ALGORITHM, true, [
        'sign',
        'verify',
      ])) as webcrypto.CryptoKeyPair;
      const leaf = await x509.X509CertificateGenerator.create({
        serialNumber: serial(),
        subject: `CN=${dns[0] ?? ips[0] ?? 'webhook'}`,
        issuer: ca.subject,
        notBefore: new Date(now - DAY),
        notAfter: new Date(now + DAY),
        publicKey: leafKeys.publicKey,
        signingKey: keys.privateKey,
        signingAlgorithm: ALGORITHM,
        extensions: [
          new x509.BasicConstraintsExtension(false),
          new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
          new x509.SubjectAlternativeNameExtension([
            ...dns.map((value) => ({ type: 'dns' as const, value })),
            ...ips.map((value) => ({ type: 'ip' as const, value })),
          ]),
        ],
      });
      return { cert: leaf.toString('pem'), key: await privateKeyPem(leafKeys.privateKey) };
    },
  };
}

/** What a test webhook answers: the AdmissionResponse fields besides uid (or a raw body to send). */
export type WebhookHandler = (
  request: JsonObject,
  path: string,
) => JsonObject | { raw: string; status?: number } | Promise<JsonObject | { raw: string; status?: number }>;

export interface TestWebhookServer {
  readonly url: string;
  readonly port: number;
  /** Every AdmissionReview request received, with the path (and query) it was sent to. */
  readonly calls: Array<{ path: string; request: JsonObject }>;
  /** TLS connections accepted so far (kept-alive callers reuse them). */
  connections(): number;
  /** Closes the connections open now, as a replica going away does; the server keeps listening. */
  dropConnections(): void;
  close(): Promise<void>;
}

export async function startWebhookServer(
  tls: { cert: string; key: string },
  handler: WebhookHandler,
): Promise<TestWebhookServer> {
  const calls: Array<{ path: string; request: JsonObject }> = [];
  const server: Server = createServer(tls, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as JsonObject;
        const request = review.request as JsonObject;
        calls.push({ path: req.url ?? '', request });
        const answer = await handler(request, req.url ?? '');
        if ('raw' in answer && typeof answer.raw === 'string') {
          res.writeHead((answer as { status?: number }).status ?? 200, { 'Content-Type': 'application/json' });
          res.end(answer.raw);
          return;
        }
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(
          JSON.stringify({
            apiVersion: 'admission.k8s.io/v1',
            kind: 'AdmissionReview',
            response: { uid: request.uid, ...answer },
          }),
        );
      })().catch(() => res.destroy());
    });
  });
  let connections = 0;
  server.on('secureConnection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    port,
    calls,
    connections: () => connections,
    dropConnections: () => server.closeAllConnections(),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A JSONPatch answer: `{ allowed: true, patchType: 'JSONPatch', patch: base64(operations) }`. */
export function jsonPatchResponse(operations: readonly JsonObject[]): JsonObject {
  return { allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(operations)).toString('base64') };
}
