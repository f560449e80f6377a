// CertificateSigningRequests: the requester written into the spec, and the approval flow kubectl drives.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { JsonObject } from '@edict/foundation';
import { afterEach, describe, expect, it } from 'vitest';
import { kubeconfigFor } from '../kubeconfig';
import { dig, startServer, type Running } from '../testing/http';
import { hasKubectl, KUBECTL, MISSING_KUBECTL, skipWithoutKubectl } from '../testing/kubectl';

const run = promisify(execFile);

/** A P-256 request for CN=jane (generated with openssl for this spec), base64 of its PEM. */
const REQUEST =
  'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlISk1IRUNBUUF3RHpFTk1Bc0dBMVVFQXd3RWFtRnVaVEJaTUJNR0J5cUdTTTQ5QWdFR0NDcUdTTTQ5QXdFSApBMElBQlBzWHYvbmlPZ3haOGtqMjRjNzJ0dFcyelNPbVVuZlg5QXEraCtITGo5ekp3dTNZMXNqa0pjN1lQcVVZCnNLY25Ed3BiYnNWRHM1MHhGbm9YeGUvbDViYWdBREFLQmdncWhrak9QUVFEQWdOSUFEQkZBaUJ5NnAwY3owNlEKUzdkWU1aeVdOK0VDY3FnSE5MdzFGVElINkFhUUpRZXRRd0loQUk2bitBUVg3bUNaODB2UFVUOUNmL0FwNE9magpKdjJDNzFhd1c1dUw1THY3Ci0tLS0tRU5EIENFUlRJRklDQVRFIFJFUVVFU1QtLS0tLQo=';
const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';

let running: Running | undefined;
let dir: string | undefined;
afterEach(async () => {
  await running?.server.stop();
  running = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function csr(name: string, spec: JsonObject = {}): JsonObject {
  return {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name },
    spec: { request: REQUEST, signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'], ...spec },
  };
}

async function createAs(user: string, body: JsonObject): Promise<{ status: number; body: JsonObject }> {
  const response = await fetch(`${running!.url}${CSRS}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Impersonate-User': user, 'Impersonate-Group': 'devs' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as JsonObject };
}

describe('CertificateSigningRequest', () => {
  it('records the requester in the spec and starts with an empty status, whatever the body says', async () => {
    running = await startServer();
    const created = await createAs('jane', {
      ...csr('jane'),
      status: { conditions: [{ type: 'Approved', status: 'True' }] },
    });
    expect(created.status).toBe(201);
    expect(created.body.spec).toMatchObject({ username: 'jane', groups: ['devs', 'system:authenticated'] });
    expect(created.body.status).toEqual({});

    const forged = await createAs('jane', csr('forged', { username: 'admin' }));
    expect(dig(forged.body, 'spec.username')).toBe('jane');
  });

  it('rejects a request that is not a PEM certificate request, or lacks signer and usages', async () => {
    running = await startServer();
    const body = csr('bad', { request: Buffer.from('not pem').toString('base64') });
    delete (body.spec as JsonObject).usages;
    const result = await running.request('POST', CSRS, body);
    expect(result.status).toBe(422);
    expect(result.body.message).toBe(
      'CertificateSigningRequest.certificates.k8s.io "bad" is invalid: [spec.request: Invalid value: "<request>": PEM block type must be CERTIFICATE REQUEST, spec.usages: Required value]',
    );
  });

  it('keeps the spec on updates; /status may not approve; /approval changes only the conditions', async () => {
    running = await startServer();
    await running.request('POST', CSRS, csr('jane'));
    const changed = await running.request(
      'PATCH',
      `${CSRS}/jane`,
      { metadata: { labels: { team: 'a' } }, spec: { signerName: 'example.com/other' } },
      'application/merge-patch+json',
    );
    expect(dig(changed.body, 'metadata.labels.team')).toBe('a');
    expect(dig(changed.body, 'spec.signerName')).toBe('kubernetes.io/kube-apiserver-client');

    const approveByStatus = await running.request(
      'PATCH',
      `${CSRS}/jane/status`,
      { status: { conditions: [{ type: 'Approved', status: 'True', reason: 'Manual' }] } },
      'application/merge-patch+json',
    );
    expect(approveByStatus.status).toBe(422);
    expect(approveByStatus.body.message).toContain('updates may not add a condition of type "Approved"');

    const approved = await running.request(
      'PATCH',
      `${CSRS}/jane/approval`,
      { status: { conditions: [{ type: 'Approved', reason: 'Manual' }], certificate: 'Zm9v' } },
      'application/merge-patch+json',
    );
    expect(approved.status).toBe(200);
    const [condition] = dig<JsonObject[]>(approved.body, 'status.conditions');
    expect(condition).toMatchObject({ type: 'Approved', status: 'True', reason: 'Manual' });
    expect(condition!.lastUpdateTime).toBeDefined();
    expect(dig(approved.body, 'status.certificate')).toBeUndefined();

    const both = await running.request(
      'PATCH',
      `${CSRS}/jane/approval`,
      { status: { conditions: [condition!, { type: 'Denied', status: 'True' }] } },
      'application/merge-patch+json',
    );
    expect(both.status).toBe(422);
    expect(both.body.message).toContain('Approved and Denied conditions are mutually exclusive');
  });

  it.skipIf(skipWithoutKubectl)('works with kubectl get csr and kubectl certificate approve', async () => {
    if (!hasKubectl) throw new Error(MISSING_KUBECTL);
    running = await startServer();
    dir = mkdtempSync(join(tmpdir(), 'edict-csr-'));
    writeFileSync(join(dir, 'kubeconfig'), kubeconfigFor({ server: running.url }));
    const kubectl = async (...args: string[]) =>
      (
        await run(KUBECTL, [...args, `--cache-dir=${join(dir!, 'cache')}`], {
          env: { ...process.env, KUBECONFIG: join(dir!, 'kubeconfig'), HOME: dir },
          timeout: 15_000,
        })
      ).stdout;
    await running.request('POST', CSRS, csr('jane'));
    expect(await kubectl('certificate', 'approve', 'jane')).toBe(
      'certificatesigningrequest.certificates.k8s.io/jane approved\n',
    );
    expect(await kubectl('get', 'csr', 'jane', '-o', 'jsonpath={.status.conditions[0].type}')).toBe('Approved');
  });
});
