/**
 * End to end (issue 33, "a typo never switches a policy off"): what Kyverno's CRD refuses is refused
 * by the policy-validation webhook too, in the API server's words, one spec per refusal class (an
 * enum value, an undeclared field, a wrong type, a missing required field); and applying both typos
 * through the embedded API server with the generated CRDs installed gives a clear refusal, while a
 * valid policy is stored with Kyverno's defaults (so `kubectl get cpol` shows ADMISSION and
 * BACKGROUND true).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningController } from './bootstrap';
import { startE2eCluster, type E2eCluster } from './testing/e2e-cluster';
import { apiErrorMessage, clusterPolicy, postJson, waitForWebhook } from '@edict/controller-runtime/testing';

interface ReviewAnswer {
  response: { uid: string; allowed: boolean; status?: { message?: string } };
}

const rule = (validate: Record<string, unknown>) => ({
  name: 'require-team',
  match: { any: [{ resources: { kinds: ['Pod'] } }] },
  validate,
});
const requireTeam = { message: 'label team is required', pattern: { metadata: { labels: { team: '?*' } } } };

const review = (object: Record<string, unknown>, resource: { version: string; resource: string; kind: string }) => ({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: {
    uid: 'u-1',
    kind: { group: 'kyverno.io', version: resource.version, kind: resource.kind },
    resource: { group: 'kyverno.io', version: resource.version, resource: resource.resource },
    operation: 'CREATE',
    userInfo: { username: 'tester' },
    object,
  },
});
const CPOL = { version: 'v1', resource: 'clusterpolicies', kind: 'ClusterPolicy' };

describe('the policy-validation webhook refuses what the CRD refuses', () => {
  let cluster: E2eCluster;
  let replica: RunningController;
  let ca: string;
  const answer = async (path: string, body: unknown) => {
    const reply = await postJson<ReviewAnswer>(replica.port, ca, path, body);
    expect(reply.status).toBe(200);
    return reply.body.response;
  };
  const policyAnswer = (spec: Record<string, unknown>) =>
    answer('/policyvalidate', review(clusterPolicy('typo', spec), CPOL));

  beforeAll(async () => {
    cluster = await startE2eCluster();
    replica = await cluster.startReplica();
    ca = replica.caBundlePem();
    await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'validate-policy.edict.svc');
  }, 30_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  it('an enum value: validationFailureAction Enforse', async () => {
    expect(await policyAnswer({ validationFailureAction: 'Enforse', rules: [rule(requireTeam)] })).toMatchObject({
      allowed: false,
      status: {
        message:
          'ClusterPolicy.kyverno.io "typo" is invalid: spec.validationFailureAction: Unsupported value: "Enforse": ' +
          'supported values: "audit", "enforce", "Audit", "Enforce"',
      },
    });
  });

  it('an undeclared field: validate.mesage', async () => {
    const { message: _message, ...pattern } = requireTeam;
    expect(await policyAnswer({ rules: [rule({ ...pattern, mesage: 'label team is required' })] })).toMatchObject({
      allowed: false,
      status: { message: 'strict decoding error: unknown field "spec.rules[0].validate.mesage"' },
    });
  });

  it('a wrong type: background "yes"', async () => {
    expect(await policyAnswer({ background: 'yes', rules: [rule(requireTeam)] })).toMatchObject({
      allowed: false,
      status: {
        message:
          'ClusterPolicy.kyverno.io "typo" is invalid: spec.background: Invalid value: "string": ' +
          'spec.background in body must be of type boolean: "string"',
      },
    });
  });

  it('a missing required field: a rule without match', async () => {
    expect(await policyAnswer({ rules: [{ name: 'no-match', validate: requireTeam }] })).toMatchObject({
      allowed: false,
      status: { message: 'ClusterPolicy.kyverno.io "typo" is invalid: spec.rules[0].match: Required value' },
    });
  });

  it('the same for a PolicyException (an undeclared field, a missing required one)', async () => {
    const exception = (spec: Record<string, unknown>) =>
      review(
        { apiVersion: 'kyverno.io/v2', kind: 'PolicyException', metadata: { name: 'ex', namespace: 'default' }, spec },
        { version: 'v2', resource: 'policyexceptions', kind: 'PolicyException' },
      );
    const match = { any: [{ resources: { kinds: ['Pod'] } }] };
    expect(
      await answer('/exceptionvalidate', exception({ match, exceptions: [{ policyName: 'p', rulenames: ['r'] }] })),
    ).toMatchObject({
      allowed: false,
      status: { message: 'strict decoding error: unknown field "spec.exceptions[0].rulenames"' },
    });
    expect(await answer('/exceptionvalidate', exception({ match }))).toMatchObject({
      allowed: false,
      status: { message: 'PolicyException.kyverno.io "ex" is invalid: spec.exceptions: Required value' },
    });
  });

  it('admits a valid policy', async () => {
    expect(await policyAnswer({ rules: [rule(requireTeam)] })).toMatchObject({ allowed: true });
  });

  describe('through the embedded API server, with the generated CRDs installed', () => {
    // kubectl's default (`--validate=strict`); without it the API server prunes unknown fields and warns.
    const create = async (name: string, spec: Record<string, unknown>, fieldValidation = 'Strict') => {
      try {
        await cluster.custom.createClusterCustomObject({
          group: 'kyverno.io',
          version: 'v1',
          plural: 'clusterpolicies',
          body: clusterPolicy(name, spec),
          fieldValidation,
        });
      } catch (error) {
        return apiErrorMessage(error);
      }
      return undefined;
    };

    it('refuses validationFailureAction Enforse (the CRD enum)', async () => {
      expect(await create('enforse', { validationFailureAction: 'Enforse', rules: [rule(requireTeam)] })).toBe(
        'ClusterPolicy.kyverno.io "enforse" is invalid: spec.validationFailureAction: Unsupported value: "Enforse": ' +
          'supported values: "audit", "enforce", "Audit", "Enforce"',
      );
      expect(cluster.apiServer.get('kyverno.io/v1', 'ClusterPolicy', 'enforse')).toBeUndefined();
    });

    it('refuses the undeclared field mesage', async () => {
      const { message: _message, ...pattern } = requireTeam;
      const refusal = await create('mesage', { rules: [rule({ ...pattern, mesage: 'label team is required' })] });
      expect(refusal).toContain('unknown field "spec.rules[0].validate.mesage"');
      expect(cluster.apiServer.get('kyverno.io/v1', 'ClusterPolicy', 'mesage')).toBeUndefined();
    });

    it('prunes the undeclared field when the client does not ask for strict validation', async () => {
      const { message: _message, ...pattern } = requireTeam;
      expect(await create('pruned', { rules: [rule({ ...pattern, mesage: 'x' })] }, 'Ignore')).toBeUndefined();
      const stored = cluster.apiServer.get('kyverno.io/v1', 'ClusterPolicy', 'pruned') as {
        spec: { rules: Array<{ validate: Record<string, unknown> }> };
      };
      expect(stored.spec.rules[0]!.validate).not.toHaveProperty('mesage');
    });

    it("stores a valid policy with Kyverno's defaults", async () => {
      expect(await create('valid', { rules: [rule(requireTeam)] })).toBeUndefined();
      expect(cluster.apiServer.get('kyverno.io/v1', 'ClusterPolicy', 'valid')?.spec).toMatchObject({
        admission: true,
        background: true,
        validationFailureAction: 'Audit',
        emitWarning: false,
      });
    });
  });
});
