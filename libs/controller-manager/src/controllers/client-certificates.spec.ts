// HTTPS with the cluster CA: client certificates authenticate, and approved client CSRs get signed.
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import { request as httpsRequest } from 'node:https';
import * as x509 from '@peculiar/x509';
import type { JsonObject } from '@edict/foundation';
import { afterEach, describe, expect, it } from 'vitest';
import { createClusterCa, DEFAULT_USER, InMemoryApiServer, type CertifiedKey, type ClusterCa } from '@edict/apiserver';
import { dig } from '@edict/apiserver/testing';
import { runControllerManager, type RunningControllerManager } from '../run-controller-manager';

let server: InMemoryApiServer | undefined;
let controllerManager: RunningControllerManager | undefined;
afterEach(async () => {
  await controllerManager?.stop();
  await server?.stop();
  server = undefined;
  controllerManager = undefined;
});

const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

/** One JSON request over HTTPS, trusting the cluster CA, with a client certificate or none. */
function call(url: string, ca: ClusterCa, method: string, path: string, body?: unknown, client?: CertifiedKey) {
  return new Promise<{ status: number; body: JsonObject }>((resolve, reject) => {
    const req = httpsRequest(
      `${url}${path}`,
      {
        method,
        ca: ca.certificatePem,
        ...(client ? { cert: client.certPem, key: client.keyPem } : {}),
        headers: { 'Content-Type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: text ? (JSON.parse(text) as JsonObject) : {} }),
        );
      },
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

async function certificateRequest(subject: string): Promise<{ pem: string; keyPem: string }> {
  const keys = (await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: subject, keys, signingAlgorithm: ALGORITHM });
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  return {
    pem: csr.toString('pem'),
    keyPem: `-----BEGIN PRIVATE KEY-----\n${der.toString('base64')}\n-----END PRIVATE KEY-----\n`,
  };
}

const whoAmI = { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' };
const SELF_REVIEWS = '/apis/authentication.k8s.io/v1/selfsubjectreviews';

describe('the API server with a cluster CA', () => {
  it('signs an approved client CSR, and the certificate then authenticates its CN and O as user and groups', async () => {
    const ca = await createClusterCa();
    server = new InMemoryApiServer({ ca });
    controllerManager = runControllerManager(server, { controllers: true });
    const { url } = await server.start();
    expect(url).toMatch(/^https:\/\//);
    const admin = await ca.client({ username: 'kubernetes-admin', groups: ['kubeadm:cluster-admins'] });
    expect(dig((await call(url, ca, 'POST', SELF_REVIEWS, whoAmI, admin)).body, 'status.userInfo.username')).toBe(
      'kubernetes-admin',
    );
    // Without a certificate, the server's default user.
    expect(dig((await call(url, ca, 'POST', SELF_REVIEWS, whoAmI)).body, 'status.userInfo')).toEqual(DEFAULT_USER);

    const { pem, keyPem } = await certificateRequest('O=mygroup, CN=chip');
    const spec = {
      request: Buffer.from(pem).toString('base64'),
      signerName: 'kubernetes.io/kube-apiserver-client',
      usages: ['client auth'],
    };
    const created = await call(
      url,
      ca,
      'POST',
      CSRS,
      { apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'chip' }, spec },
      admin,
    );
    expect(created.status).toBe(201);
    await controllerManager!.controllers!.settled();
    expect(
      dig((await call(url, ca, 'GET', `${CSRS}/chip`, undefined, admin)).body, 'status.certificate'),
    ).toBeUndefined();

    const approved = {
      ...created.body,
      status: { conditions: [{ type: 'Approved', status: 'True', reason: 'Test' }] },
    };
    expect((await call(url, ca, 'PUT', `${CSRS}/chip/approval`, approved, admin)).status).toBe(200);
    await controllerManager!.controllers!.settled();
    const issued = dig(
      (await call(url, ca, 'GET', `${CSRS}/chip`, undefined, admin)).body,
      'status.certificate',
    ) as string;
    const certPem = Buffer.from(issued, 'base64').toString('utf8');
    expect(new x509.X509Certificate(certPem).subject).toBe('O=mygroup, CN=chip');

    const chip = await call(url, ca, 'POST', SELF_REVIEWS, whoAmI, { certPem, keyPem });
    expect(dig(chip.body, 'status.userInfo')).toEqual({
      username: 'chip',
      groups: ['mygroup', 'system:authenticated'],
    });
  });
});
