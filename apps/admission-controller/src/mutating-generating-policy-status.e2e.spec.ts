/**
 * End to end, through the real kubectl against the in-memory cluster and one admission controller:
 * MutatingPolicies and GeneratingPolicies are held compiled by the CEL policy cache and get the status
 * Kyverno's status controller writes (conditions, Ready, autogen for a MutatingPolicy), and a
 * DeletingPolicy its conditionStatus (shown by `kubectl get dpol`); the policy
 * validation webhook refuses a MutatingPolicy, GeneratingPolicy or DeletingPolicy Kyverno refuses,
 * naming the field; a typo in a field name is refused by the CRD's schema. A MutatingPolicy run at
 * admission gets its mpol webhook (WebhookConfigured True); a GeneratingPolicy has none yet (False).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  hasKubectl,
  kubectlSession,
  MISSING_KUBECTL,
  skipWithoutKubectl,
  tableRows,
  type KubectlSession,
} from '@edict/apiserver/testing';
import { eventually } from '@edict/kube/testing';
import { waitForWebhook } from '@edict/controller-runtime/testing';
import { startE2eCluster, type E2eCluster } from './testing/e2e-cluster';

interface PolicyView {
  status?: {
    conditionStatus?: { ready?: boolean; conditions?: Array<Record<string, unknown>>; message?: string };
    autogen?: { configs?: Record<string, { targets: Array<{ kind: string }> }> };
    generated?: boolean;
  };
}

const rules = (resource: string) => `  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: [v1]
      operations: [CREATE, UPDATE]
      resources: [${resource}]
`;

const mpolYaml = (name: string, expression: string, evaluation = '') => `
apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata:
  name: ${name}
spec:
${rules('pods')}${evaluation}  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: ${JSON.stringify(expression)}
`;

const gpolYaml = (name: string, expression: string) => `
apiVersion: policies.kyverno.io/v1beta1
kind: GeneratingPolicy
metadata:
  name: ${name}
spec:
${rules('namespaces')}  generate:
  - expression: ${JSON.stringify(expression)}
`;

const conditionTypes = (view: PolicyView | undefined) =>
  (view?.status?.conditionStatus?.conditions ?? []).map((c) => `${String(c.type)}=${String(c.status)}`);

if (!hasKubectl) {
  it.skipIf(skipWithoutKubectl)('needs kubectl', () => {
    throw new Error(MISSING_KUBECTL);
  });
}

describe.skipIf(!hasKubectl)('MutatingPolicies and GeneratingPolicies in the cluster', () => {
  let cluster: E2eCluster;
  let kubectl: KubectlSession;
  const named = (kind: string, name: string) =>
    cluster.apiServer.get('policies.kyverno.io/v1', kind, name) as unknown as PolicyView | undefined;

  beforeAll(async () => {
    cluster = await startE2eCluster();
    await cluster.startReplica();
    await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'validate-policy.edict.svc');
    const server = /server: (\S+)/.exec(cluster.kubeconfig)![1]!;
    kubectl = kubectlSession(server);
  }, 30_000);
  afterAll(async () => {
    kubectl?.close();
    await cluster?.stop();
  });

  it('brings a mutate-existing MutatingPolicy to Ready with its autogen configs, as Kyverno writes them', async () => {
    const backgroundOnly =
      '  evaluation:\n    admission:\n      enabled: false\n    mutateExisting:\n      enabled: true\n';
    const label = 'Object{metadata: Object.metadata{labels: {"team": "a"}}}';
    await kubectl.run('apply', '-f', kubectl.file('mpol.yaml', mpolYaml('label-pods', label, backgroundOnly)));
    await eventually(
      () => named('MutatingPolicy', 'label-pods')?.status?.conditionStatus?.ready === true,
      'mpol Ready',
      15_000,
    );
    const status = named('MutatingPolicy', 'label-pods')!.status!;
    // Background only: no WebhookConfigured, as Kyverno's status controller leaves it out.
    expect(status.conditionStatus!.conditions).toEqual([
      expect.objectContaining({
        type: 'RBACPermissionsGranted',
        status: 'True',
        reason: 'Succeeded',
        message: 'Policy is ready for reporting.',
      }),
    ]);
    expect(Object.keys(status.autogen!.configs!).sort()).toEqual(['cronjobs', 'defaults']);
    expect(status.generated).toBe(false);
  }, 30_000);

  it('writes both conditions for policies run at admission (WebhookConfigured once their webhook is published)', async () => {
    await kubectl.run('apply', '-f', kubectl.file('at-admission.yaml', mpolYaml('at-admission', 'Object{}')));
    await kubectl.run(
      'apply',
      '-f',
      kubectl.file('gpol.yaml', gpolYaml('copy-config', 'generator.Apply(object.metadata.name, [])')),
    );
    // A MutatingPolicy's mpol webhook is published: WebhookConfigured turns True and the policy Ready.
    await eventually(
      () => named('MutatingPolicy', 'at-admission')?.status?.conditionStatus?.ready === true,
      'mpol Ready',
      15_000,
    );
    expect(conditionTypes(named('MutatingPolicy', 'at-admission'))).toEqual([
      'WebhookConfigured=True',
      'RBACPermissionsGranted=True',
    ]);
    await eventually(
      () => conditionTypes(named('GeneratingPolicy', 'copy-config')).length === 2,
      'gpol status',
      15_000,
    );
    expect(conditionTypes(named('GeneratingPolicy', 'copy-config'))).toEqual([
      'WebhookConfigured=False',
      'RBACPermissionsGranted=True',
    ]);
    expect(named('GeneratingPolicy', 'copy-config')!.status!.conditionStatus!.ready).toBe(false);
    expect(Object.keys(named('GeneratingPolicy', 'copy-config')!.status!)).toEqual(['conditionStatus']);
  }, 30_000);

  it('writes the conditionStatus of a DeletingPolicy, which kubectl get dpol shows as READY', async () => {
    const dpol = `
apiVersion: policies.kyverno.io/v1
kind: DeletingPolicy
metadata:
  name: old-pods
spec:
${rules('pods')}  schedule: "*/5 * * * *"
`;
    await kubectl.run('apply', '-f', kubectl.file('good-dpol.yaml', dpol));
    await eventually(
      () => named('DeletingPolicy', 'old-pods')?.status?.conditionStatus?.ready === true,
      'dpol Ready',
      15_000,
    );
    expect(named('DeletingPolicy', 'old-pods')!.status!.conditionStatus!.conditions).toEqual([
      expect.objectContaining({
        type: 'RBACPermissionsGranted',
        status: 'True',
        message: 'Kyverno can access the resources targeted by this policy.',
      }),
    ]);
    expect(tableRows(await kubectl.run('get', 'dpol', 'old-pods'))).toEqual([
      ['NAME', 'AGE', 'READY'],
      ['old-pods', expect.stringMatching(/^\d+s$/), 'true'],
    ]);
  }, 30_000);

  it('refuses what Kyverno refuses, naming the field', async () => {
    const badPatch = await kubectl.attempt(
      'apply',
      '-f',
      kubectl.file('bad-mpol.yaml', mpolYaml('bad-patch', 'Object{metadata: objekt}')),
    );
    expect(badPatch.code).not.toBe(0);
    expect(badPatch.stderr).toContain('admission webhook "validate-policy.edict.svc" denied the request');
    expect(badPatch.stderr).toMatch(/spec\.mutations\[0\]\.applyConfiguration\.expression: .*objekt/);

    const noRules = gpolYaml('no-rules', 'generator.Apply("a", [])').replace(
      / {2}matchConstraints:[\s\S]*?(?= {2}generate:)/,
      '',
    );
    const refused = await kubectl.attempt('apply', '-f', kubectl.file('no-rules.yaml', noRules));
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(
      'spec.matchConstraints: Required value: a matchConstraints with at least one resource rule is required',
    );

    const dpol = `
apiVersion: policies.kyverno.io/v1
kind: DeletingPolicy
metadata:
  name: bad-schedule
spec:
${rules('pods')}  schedule: "every minute"
`;
    const badSchedule = await kubectl.attempt('apply', '-f', kubectl.file('dpol.yaml', dpol));
    expect(badSchedule.code).not.toBe(0);
    expect(badSchedule.stderr).toMatch(/spec\.schedule: /);
    expect(named('MutatingPolicy', 'bad-patch')).toBeUndefined();
    expect(named('GeneratingPolicy', 'no-rules')).toBeUndefined();
    expect(named('DeletingPolicy', 'bad-schedule')).toBeUndefined();
  }, 30_000);

  it('refuses a typo in a field name (the CRD schema, strict field validation)', async () => {
    const typo = gpolYaml('typo', 'generator.Apply("a", [])').replace('generate:', 'generat:');
    const answer = await kubectl.attempt('apply', '-f', kubectl.file('typo.yaml', typo));
    expect(answer.code).not.toBe(0);
    expect(answer.stderr).toContain('unknown field "spec.generat"');
  }, 30_000);
});
