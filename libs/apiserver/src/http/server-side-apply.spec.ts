// Server-side apply over HTTP: the manager a write is recorded under, and a controller's forced apply.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '@edict/foundation';
import { startServer, type Running } from '../testing/http';

const APPLY = 'application/apply-patch+yaml';
const PATH = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/edict';

let running: Running;
beforeEach(async () => {
  running = await startServer();
});
afterEach(async () => {
  await running.server.stop();
});

const configuration = (failurePolicy: string): JsonObject => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingWebhookConfiguration',
  metadata: { name: 'edict' },
  webhooks: [
    {
      name: 'validate.edict.io',
      admissionReviewVersions: ['v1'],
      sideEffects: 'None',
      failurePolicy,
      clientConfig: { url: 'https://edict.example/validate' },
    },
  ],
});

const managers = (object: JsonObject) =>
  ((object.metadata as JsonObject).managedFields as JsonObject[]).map((entry) => `${entry.manager}/${entry.operation}`);

describe('server-side apply over HTTP', () => {
  it('records a write without fieldManager under its user agent, then a controller forced apply wins', async () => {
    const response = await fetch(
      `${running.url}/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations`,
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'User-Agent': 'helm/v3.16.0 (linux/amd64)' },
        body: JSON.stringify(configuration('Ignore')),
      },
    );
    expect(managers((await response.json()) as JsonObject)).toEqual(['helm/Update']);

    const refused = await running.request(
      'PATCH',
      `${PATH}?fieldManager=edict-controller`,
      configuration('Fail'),
      APPLY,
    );
    expect(refused).toMatchObject({
      status: 409,
      body: {
        reason: 'Conflict',
        message:
          'Apply failed with 1 conflict: conflict with "helm" using admissionregistration.k8s.io/v1: .webhooks[name="validate.edict.io"].failurePolicy',
        details: {
          causes: [{ reason: 'FieldManagerConflict', field: '.webhooks[name="validate.edict.io"].failurePolicy' }],
        },
      },
    });

    const forced = await running.request(
      'PATCH',
      `${PATH}?fieldManager=edict-controller&force=true`,
      configuration('Fail'),
      APPLY,
    );
    expect(forced.status).toBe(200);
    expect((forced.body.webhooks as JsonObject[])[0]!.failurePolicy).toBe('Fail');
    // helm keeps the webhook fields it set to the same value; the policy is the controller's now.
    expect(managers(forced.body)).toEqual(['edict-controller/Apply', 'helm/Update']);
    // Re-applied unchanged: nothing is written.
    const again = await running.request(
      'PATCH',
      `${PATH}?fieldManager=edict-controller&force=true`,
      configuration('Fail'),
      APPLY,
    );
    expect((again.body.metadata as JsonObject).resourceVersion).toBe(
      (forced.body.metadata as JsonObject).resourceVersion,
    );
  });
});
