/**
 * A review whose object holds a `__proto__` key (a legal ConfigMap data key) is evaluated like any
 * other. Fastify's JSON parser refused such bodies with 400 by default, so an Ignore webhook
 * admitted them without any policy seeing them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningController } from '../bootstrap';
import { startE2eCluster, type E2eCluster } from '../testing/e2e-cluster';
import { clusterPolicy } from '@edict/controller-runtime/testing';

const REVIEW = (proto: string) =>
  `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-proto",` +
  `"kind":{"group":"","version":"v1","kind":"ConfigMap"},"resource":{"group":"","version":"v1","resource":"configmaps"},` +
  `"namespace":"default","operation":"CREATE","userInfo":{"username":"tester"},` +
  `"object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","namespace":"default"},` +
  `"data":{"__proto__":"${proto}","constructor":{"prototype":{"polluted":"yes"}}}}}}`;

describe('reviews with __proto__ and constructor keys', () => {
  let cluster: E2eCluster;
  let controller: RunningController;

  const post = async (path: string, payload: string) => {
    const answer = await controller.app.inject({
      method: 'POST',
      url: path,
      payload,
      headers: { 'content-type': 'application/json' },
    });
    return { status: answer.statusCode, body: JSON.parse(answer.body) };
  };

  beforeAll(async () => {
    cluster = await startE2eCluster();
    controller = await cluster.startReplica();
    await cluster.createClusterPolicy(
      clusterPolicy('no-forbidden-data', {
        validationFailureAction: 'Enforce',
        failurePolicy: 'Ignore',
        background: false,
        rules: [
          {
            name: 'check-proto',
            match: { any: [{ resources: { kinds: ['ConfigMap'] } }] },
            validate: {
              message: 'data.__proto__ may not be forbidden',
              deny: {
                conditions: {
                  any: [{ key: "{{ request.object.data.__proto__ || '' }}", operator: 'Equals', value: 'forbidden' }],
                },
              },
            },
          },
        ],
      }),
    );
    await cluster.createClusterPolicy(
      clusterPolicy('copy-proto', {
        background: false,
        rules: [
          {
            name: 'copy',
            match: { any: [{ resources: { kinds: ['ConfigMap'] } }] },
            mutate: {
              patchStrategicMerge: { metadata: { labels: { copied: '{{ request.object.data.__proto__ }}' } } },
            },
          },
        ],
      }),
    );
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  it('is evaluated by a validate policy on the Ignore path: denied or admitted as the policy says', async () => {
    const denied = await post('/validate/ignore', REVIEW('forbidden'));
    expect(denied.status).toBe(200);
    expect(denied.body.response).toMatchObject({ uid: 'u-proto', allowed: false });
    expect(denied.body.response.status.message).toContain('data.__proto__ may not be forbidden');
    const admitted = await post('/validate/ignore', REVIEW('fine'));
    expect(admitted.status).toBe(200);
    expect(admitted.body.response).toEqual({ uid: 'u-proto', allowed: true });
  });

  it('is mutated with the key kept as data, and the JSON patch is right', async () => {
    const answer = await post('/mutate/fail', REVIEW('v1'));
    expect(answer.status).toBe(200);
    expect(answer.body.response).toMatchObject({ uid: 'u-proto', allowed: true, patchType: 'JSONPatch' });
    const patch = JSON.parse(Buffer.from(answer.body.response.patch, 'base64').toString());
    expect(patch).toEqual([{ op: 'add', path: '/metadata/labels', value: { copied: 'v1' } }]);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});
