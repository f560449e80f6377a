import { describe, expect, it } from 'vitest';
import type { AccessReviewer } from '../core/loaders';
import type { AccessReviewDecision, AccessReviewRequest } from '@edict/cel';
import {
  backgroundPermissionQuestions,
  checkBackgroundPermissions,
  reportsPermissionWarnings,
  type ResourceResolver,
} from './background-permissions';
import { policyFromYaml } from '@edict/engine/testing';

const USER = 'system:serviceaccount:kyverno:kyverno-background-controller';

/** Grants what `grants` lists as `verb group/resource[@namespace]`; records every review. */
class GrantListReviewer implements AccessReviewer {
  readonly asked: AccessReviewRequest[] = [];
  constructor(private readonly grants: readonly string[]) {}
  review(request: AccessReviewRequest): AccessReviewDecision {
    this.asked.push(request);
    const a = request.resourceAttributes!;
    const resource = `${a.group}/${a.resource}${a.subresource ? `/${a.subresource}` : ''}`;
    const allowed =
      this.grants.includes(`${a.verb} ${resource}`) ||
      (a.namespace !== undefined && this.grants.includes(`${a.verb} ${resource}@${a.namespace}`));
    return { allowed };
  }
}

const KNOWN: Record<string, { group: string; resource: string }> = {
  'v1/ServiceAccount': { group: '', resource: 'serviceaccounts' },
  'v1/Secret': { group: '', resource: 'secrets' },
  'v1/ConfigMap': { group: '', resource: 'configmaps' },
  'apps/v1/Deployment': { group: 'apps', resource: 'deployments' },
};
const resolve: ResourceResolver = (apiVersion, kind) => Promise.resolve(KNOWN[`${apiVersion}/${kind}`]);

const GENERATE_SA = `
rules:
- name: clone-secret
  match: {any: [{resources: {kinds: [ConfigMap]}}]}
  generate:
    apiVersion: v1
    kind: ServiceAccount
    name: sa
    namespace: default
    synchronize: true
    clone: {namespace: default, name: regcred}`;

const MUTATE_SA = `
rules:
- name: label-sa
  match: {any: [{resources: {kinds: [Namespace]}}]}
  mutate:
    targets:
    - apiVersion: v1
      kind: ServiceAccount
    patchStrategicMerge: {metadata: {labels: {foo: bar}}}`;

describe('backgroundPermissionQuestions', () => {
  it('asks get and create for a generate rule, plus update and delete when it synchronizes', () => {
    const [synced] = backgroundPermissionQuestions(policyFromYaml(GENERATE_SA));
    expect(synced).toMatchObject({
      path: 'spec.rules[0].generate',
      rule: 'clone-secret',
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      namespace: 'default',
      verbs: ['get', 'create', 'update', 'delete'],
    });
    const [plain] = backgroundPermissionQuestions(
      policyFromYaml(GENERATE_SA.replace('synchronize: true', 'synchronize: false')),
    );
    expect(plain?.verbs).toEqual(['get', 'create']);
  });

  it('asks get and update for each mutate-existing target, and nothing for a foreach mutation', () => {
    expect(backgroundPermissionQuestions(policyFromYaml(MUTATE_SA))).toEqual([
      expect.objectContaining({
        path: 'spec.rules[0].mutate.targets',
        kind: 'ServiceAccount',
        verbs: ['get', 'update'],
      }),
    ]);
    const foreach = MUTATE_SA.replace(
      'patchStrategicMerge: {metadata: {labels: {foo: bar}}}',
      'foreach: [{list: "[]", patchStrategicMerge: {metadata: {labels: {foo: bar}}}}]',
    );
    expect(backgroundPermissionQuestions(policyFromYaml(foreach))).toEqual([]);
  });

  it('splits cloneList kinds and selector kinds into group version, kind and subresource', () => {
    const policy = policyFromYaml(`
rules:
- name: r
  match: {any: [{resources: {kinds: [Namespace]}}]}
  generate:
    namespace: "{{ request.object.metadata.name }}"
    cloneList: {namespace: default, kinds: [v1/Secret, apps/v1/Deployment/scale]}`);
    expect(backgroundPermissionQuestions(policy)).toEqual([
      expect.objectContaining({ apiVersion: 'v1', kind: 'Secret', subresource: '', namespace: '' }),
      expect.objectContaining({ apiVersion: 'apps/v1', kind: 'Deployment', subresource: 'scale', namespace: '' }),
    ]);
  });
});

describe('checkBackgroundPermissions', () => {
  it('refuses a generate rule naming the rule, the user and the verbs missing', async () => {
    const reviewer = new GrantListReviewer(['get /serviceaccounts', 'create /serviceaccounts']);
    const diagnostics = await checkBackgroundPermissions(policyFromYaml(GENERATE_SA), {
      user: USER,
      reviewer,
      resolve,
    });
    expect(diagnostics).toEqual([
      expect.objectContaining({
        path: 'spec.rules[0].generate',
        message: `rule clone-secret: ${USER} requires permissions update,delete for resource v1/ServiceAccount in namespace default; grant them to the background controller`,
      }),
    ]);
    expect(reviewer.asked.map((r) => [r.user, r.resourceAttributes?.verb, r.resourceAttributes?.namespace])).toEqual([
      [USER, 'get', 'default'],
      [USER, 'create', 'default'],
      [USER, 'update', 'default'],
      [USER, 'delete', 'default'],
    ]);
  });

  it('admits once every verb is granted, cluster-wide or in the namespace', async () => {
    const reviewer = new GrantListReviewer([
      'get /serviceaccounts',
      'create /serviceaccounts@default',
      'update /serviceaccounts',
      'delete /serviceaccounts',
    ]);
    expect(await checkBackgroundPermissions(policyFromYaml(GENERATE_SA), { user: USER, reviewer, resolve })).toEqual(
      [],
    );
  });

  it('refuses a mutate-existing target with Kyverno auth-check wording', async () => {
    const reviewer = new GrantListReviewer(['get /serviceaccounts']);
    const [refusal] = await checkBackgroundPermissions(policyFromYaml(MUTATE_SA), { user: USER, reviewer, resolve });
    expect(refusal?.message).toBe(
      `rule label-sa: auth check fails, additional privileges are required for the service account '${USER}': ${USER} requires permissions update for resource v1/ServiceAccount`,
    );
  });

  it('refuses a kind the API server does not serve, and a review that cannot be made (fail closed)', async () => {
    const unknown = policyFromYaml(GENERATE_SA.replace('kind: ServiceAccount', 'kind: Widget'));
    const allowAll: AccessReviewer = { review: () => ({ allowed: true }) };
    const [notServed] = await checkBackgroundPermissions(unknown, { user: USER, reviewer: allowAll, resolve });
    expect(notServed?.message).toBe('rule clone-secret: failed to get GVR for kind v1/Widget');

    const broken: AccessReviewer = { review: () => Promise.reject(new Error('connection refused')) };
    const [unasked] = await checkBackgroundPermissions(policyFromYaml(GENERATE_SA), {
      user: USER,
      reviewer: broken,
      resolve,
    });
    expect(unasked?.message).toBe(`rule clone-secret: could not check the permissions of ${USER}: connection refused`);
  });

  it('skips, and reports, a kind left to a variable or a wildcard', async () => {
    const policy = policyFromYaml(`
rules:
- name: r
  match: {any: [{resources: {kinds: [Namespace]}}]}
  mutate:
    targets:
    - {apiVersion: "*", kind: ConfigMap}
    - {apiVersion: v1, kind: "{{ request.object.kind }}"}
    patchStrategicMerge: {metadata: {labels: {foo: bar}}}`);
    const skipped: string[] = [];
    const reviewer = new GrantListReviewer([]);
    const diagnostics = await checkBackgroundPermissions(policy, {
      user: USER,
      reviewer,
      resolve,
      skipped: (question, why) => skipped.push(`${question.kind}: ${why}`),
    });
    expect(diagnostics).toEqual([]);
    expect(reviewer.asked).toEqual([]);
    expect(skipped).toEqual([
      'ConfigMap: its kind names no single API version',
      '{{ request.object.kind }}: its kind uses variables',
    ]);
  });
});

describe('reportsPermissionWarnings', () => {
  const REPORTS = 'system:serviceaccount:kyverno:kyverno-reports-controller';
  const byKind: Record<string, { group: string; resource: string }> = {
    Pod: { group: '', resource: 'pods' },
    ConfigMap: { group: '', resource: 'configmaps' },
    'apps/v1/Deployment': { group: 'apps', resource: 'deployments' },
  };
  const warningsFor = (yaml: string, grants: string[]) =>
    reportsPermissionWarnings(policyFromYaml(yaml), {
      user: REPORTS,
      reviewer: new GrantListReviewer(grants),
      resolve: (selector) => Promise.resolve(byKind[selector]),
    });
  const rule = (kinds: string, body: string) => `
rules:
- name: r
  match: {any: [{resources: {kinds: ${kinds}}}]}
${body}`;
  const VALIDATE = '  validate: {message: m, pattern: {metadata: {name: "?*"}}}';

  it('warns with the verbs the reports controller lacks for each matched kind', async () => {
    expect(await warningsFor(rule('[ConfigMap]', VALIDATE), ['get /configmaps'])).toEqual([
      `${REPORTS} requires permissions list,watch for resource ConfigMap`,
    ]);
    expect(
      await warningsFor(rule('[ConfigMap]', VALIDATE), ['get /configmaps', 'list /configmaps', 'watch /configmaps']),
    ).toEqual([]);
  });

  it('a validate rule stops at its first warning; a mutate rule names every kind', async () => {
    expect(await warningsFor(rule('[ConfigMap, apps/v1/Deployment]', VALIDATE), [])).toHaveLength(1);
    const mutate = '  mutate: {patchStrategicMerge: {metadata: {labels: {a: b}}}}';
    expect(await warningsFor(rule('[ConfigMap, apps/v1/Deployment]', mutate), [])).toEqual([
      `${REPORTS} requires permissions get,list,watch for resource ConfigMap`,
      `${REPORTS} requires permissions get,list,watch for resource apps/v1/Deployment`,
    ]);
  });

  it('checks autogen rules too, and skips a rule naming a wildcard kind', async () => {
    const pods = await warningsFor(rule('[Pod]', VALIDATE), ['get /pods', 'list /pods', 'watch /pods']);
    expect(pods).toEqual([`${REPORTS} requires permissions get,list,watch for resource apps/v1/Deployment`]);
    const mutate = '  mutate: {patchStrategicMerge: {metadata: {labels: {a: b}}}}';
    expect(await warningsFor(rule('[ConfigMap, "*"]', mutate), [])).toEqual([]);
  });
});
