import { describe, expect, it } from 'vitest';
import type { AccessReviewer } from '@edict/engine';
import type { AccessReviewRequest } from '@edict/cel';
import type { KubeObject } from '@edict/foundation';
import {
  authorCheckNeeded,
  checkGeneratePermissions,
  MAX_PERMISSION_TARGETS,
  type GenerateResourceResolver,
} from './generate-permissions';
import { generateTargets } from './generate-targets';

type Attributes = NonNullable<AccessReviewRequest['resourceAttributes']>;

/** A reviewer granting what `allow` says, recording every question. */
function reviewer(allow: (user: string, attributes: Attributes) => boolean) {
  const asked: AccessReviewRequest[] = [];
  const port: AccessReviewer = {
    review: (request) => {
      asked.push(request);
      return { allowed: allow(request.user, request.resourceAttributes!) };
    },
  };
  return { port, asked };
}

const KINDS: Record<string, { group: string; resource: string; namespaced: boolean }> = {
  'v1/ConfigMap': { group: '', resource: 'configmaps', namespaced: true },
  'v1/Namespace': { group: '', resource: 'namespaces', namespaced: false },
  'networking.k8s.io/v1/NetworkPolicy': { group: 'networking.k8s.io', resource: 'networkpolicies', namespaced: true },
};
const resolve: GenerateResourceResolver = async (apiVersion, kind) => KINDS[`${apiVersion}/${kind}`];

function gpol(expression: string, extra: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'policies.kyverno.io/v1',
    kind: 'GeneratingPolicy',
    metadata: { name: 'gen' },
    spec: {
      matchConstraints: {
        resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['namespaces'], operations: ['CREATE'] }],
      },
      generate: [{ expression }],
      ...extra,
    },
  };
}

const CONFIGMAP_INTO_TARGET =
  'generator.Apply("target", [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}}])';
const alice = { role: 'author' as const, subject: { user: 'alice', groups: ['authors'] } };

describe('generateTargets', () => {
  it('reads the literal namespace and each literal object kind of generator.Apply', () => {
    const policy = gpol(
      'generator.Apply("target", [{"apiVersion": "v1", "kind": "ConfigMap"}, ' +
        '{"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy"}])',
    );
    expect(generateTargets(policy)).toEqual([
      { path: 'spec.generate[0].expression', namespace: 'target', apiVersion: 'v1', kind: 'ConfigMap' },
      {
        path: 'spec.generate[0].expression',
        namespace: 'target',
        apiVersion: 'networking.k8s.io/v1',
        kind: 'NetworkPolicy',
      },
    ]);
  });

  it('follows variables.<name> into the variable expressions', () => {
    const policy = gpol('generator.Apply(variables.ns, [variables.cm])', {
      variables: [
        { name: 'ns', expression: '"team-a"' },
        { name: 'cm', expression: '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}' },
      ],
    });
    expect(generateTargets(policy)).toEqual([
      { path: 'spec.generate[0].expression', namespace: 'team-a', apiVersion: 'v1', kind: 'ConfigMap' },
    ]);
  });

  it('leaves what is decided at generation open', () => {
    expect(generateTargets(gpol('generator.Apply(object.metadata.name, [variables.source])'))).toEqual([
      { path: 'spec.generate[0].expression', namespace: undefined, apiVersion: undefined, kind: undefined },
    ]);
    // A generator held in a variable or used another way: nothing is known.
    expect(
      generateTargets(gpol('variables.g.Apply("a", [])', { variables: [{ name: 'g', expression: 'generator' }] })),
    ).toEqual([{ path: 'spec.generate[0].expression', namespace: undefined, apiVersion: undefined, kind: undefined }]);
  });

  it('reads the documents of a template', () => {
    const policy: KubeObject = {
      ...gpol(''),
      spec: {
        generate: [
          {
            template: {
              interpolate: 'cel',
              value:
                'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: fixed\n---\n' +
                'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  namespace: ((object.metadata.name))\n',
            },
          },
        ],
      },
    };
    expect(generateTargets(policy)).toEqual([
      { path: 'spec.generate[0].template.value', namespace: 'fixed', apiVersion: 'v1', kind: 'ConfigMap' },
      { path: 'spec.generate[0].template.value', namespace: undefined, apiVersion: 'v1', kind: 'ConfigMap' },
    ]);
  });
});

describe('checkGeneratePermissions', () => {
  it('refuses a literal namespace the author cannot write, naming the field and the missing verbs', async () => {
    const { port, asked } = reviewer((_, attributes) => attributes.namespace !== 'target' || attributes.verb === 'get');
    const errors = await checkGeneratePermissions(gpol(CONFIGMAP_INTO_TARGET), alice, { reviewer: port, resolve });
    expect(errors).toEqual([
      {
        field: 'spec.generate[0].expression',
        message:
          'policy author "alice" is not authorized: requires permissions create for resource v1/ConfigMap in namespace target',
      },
    ]);
    expect(asked.map((request) => [request.user, request.groups, request.resourceAttributes])).toEqual([
      ['alice', ['authors'], { group: '', resource: 'configmaps', namespace: 'target', verb: 'get' }],
      ['alice', ['authors'], { group: '', resource: 'configmaps', namespace: 'target', verb: 'create' }],
    ]);
  });

  it('allows a literal namespace the author can write', async () => {
    const { port } = reviewer((_, attributes) => attributes.namespace === 'target');
    expect(await checkGeneratePermissions(gpol(CONFIGMAP_INTO_TARGET), alice, { reviewer: port, resolve })).toEqual([]);
  });

  it('asks for a dynamic namespace cluster-wide', async () => {
    const policy = gpol('generator.Apply(object.metadata.name, [{"apiVersion": "v1", "kind": "ConfigMap"}])');
    const namespaceOnly = reviewer((_, attributes) => attributes.namespace === 'target');
    expect(await checkGeneratePermissions(policy, alice, { reviewer: namespaceOnly.port, resolve })).toEqual([
      {
        field: 'spec.generate[0].expression',
        message:
          'policy author "alice" is not authorized: requires permissions get,create for resource v1/ConfigMap ' +
          'in all namespaces (the namespace is decided at generation)',
      },
    ]);
    expect(namespaceOnly.asked.every((request) => request.resourceAttributes!.namespace === undefined)).toBe(true);
    const clusterWide = reviewer(() => true);
    expect(await checkGeneratePermissions(policy, alice, { reviewer: clusterWide.port, resolve })).toEqual([]);
  });

  it('asks for every resource when the kind is dynamic', async () => {
    const policy = gpol('generator.Apply("target", [variables.source])');
    const { port, asked } = reviewer((_, attributes) => attributes.resource === 'configmaps');
    const errors = await checkGeneratePermissions(policy, alice, { reviewer: port, resolve });
    expect(errors.map((error) => error.message)).toEqual([
      'policy author "alice" is not authorized: requires permissions get,create for all resources ' +
        '(the kind is decided at generation) in namespace target',
    ]);
    expect(asked.map((request) => request.resourceAttributes)).toContainEqual({
      group: '*',
      resource: '*',
      namespace: 'target',
      verb: 'create',
    });
  });

  it('asks update and delete too when synchronize is on', async () => {
    const policy = gpol(CONFIGMAP_INTO_TARGET, { evaluation: { synchronize: { enabled: true } } });
    const { port, asked } = reviewer((_, attributes) => ['get', 'create'].includes(attributes.verb));
    const errors = await checkGeneratePermissions(policy, alice, { reviewer: port, resolve });
    expect(asked.map((request) => request.resourceAttributes!.verb)).toEqual(['get', 'create', 'update', 'delete']);
    expect(errors[0]?.message).toContain('requires permissions update,delete for resource v1/ConfigMap');
  });

  it("checks the background controller's permissions, leaving a dynamic kind unasked", async () => {
    const background = { role: 'background' as const, user: 'system:serviceaccount:edict:background' };
    const { port, asked } = reviewer(() => false);
    const errors = await checkGeneratePermissions(gpol(CONFIGMAP_INTO_TARGET), background, { reviewer: port, resolve });
    expect(errors).toEqual([
      {
        field: 'spec.generate[0].expression',
        message:
          'system:serviceaccount:edict:background requires permissions get,create for resource v1/ConfigMap ' +
          'in namespace target; grant them to the background controller',
      },
    ]);
    expect(asked.every((request) => request.user === background.user && request.groups === undefined)).toBe(true);
    const dynamic = reviewer(() => false);
    const policy = gpol('generator.Apply("target", [variables.source])');
    expect(await checkGeneratePermissions(policy, background, { reviewer: dynamic.port, resolve })).toEqual([]);
    expect(dynamic.asked).toEqual([]);
  });

  it('refuses a kind the API server does not serve, an unknown author and a review that fails (fail closed)', async () => {
    const allowAll = reviewer(() => true).port;
    const unknown = gpol('generator.Apply("t", [{"apiVersion": "example.com/v1", "kind": "Widget"}])');
    expect(await checkGeneratePermissions(unknown, alice, { reviewer: allowAll, resolve })).toEqual([
      { field: 'spec.generate[0].expression', message: 'failed to get GVR for kind example.com/v1/Widget' },
    ]);
    const nobody = { role: 'author' as const, subject: { user: '' } };
    expect(
      await checkGeneratePermissions(gpol(CONFIGMAP_INTO_TARGET), nobody, { reviewer: allowAll, resolve }),
    ).toEqual([{ field: 'spec.generate', message: 'the policy author is unknown (no user in the admission request)' }]);
    const broken: AccessReviewer = {
      review: () => {
        throw new Error('connection refused');
      },
    };
    expect(await checkGeneratePermissions(gpol(CONFIGMAP_INTO_TARGET), alice, { reviewer: broken, resolve })).toEqual([
      {
        field: 'spec.generate[0].expression',
        message: 'could not check the permissions of alice: connection refused',
      },
    ]);
  });

  it('asks a cluster-scoped kind without a namespace', async () => {
    const policy = gpol('generator.Apply("", [{"apiVersion": "v1", "kind": "Namespace"}])');
    const { port, asked } = reviewer(() => true);
    expect(await checkGeneratePermissions(policy, alice, { reviewer: port, resolve })).toEqual([]);
    expect(asked.map((request) => request.resourceAttributes)).toEqual([
      { group: '', resource: 'namespaces', verb: 'get' },
      { group: '', resource: 'namespaces', verb: 'create' },
    ]);
  });
});

describe('checkGeneratePermissions bounds', () => {
  it('asks each distinct target once, and widens past the limit instead of asking one per namespace', async () => {
    const into = (namespace: string) => `generator.Apply("${namespace}", [{"apiVersion": "v1", "kind": "ConfigMap"}])`;
    const twice = gpol(`${into('a')} && ${into('a')}`);
    const once = reviewer(() => true);
    await checkGeneratePermissions(twice, alice, { reviewer: once.port, resolve });
    expect(once.asked).toHaveLength(2);

    const many = Array.from({ length: MAX_PERMISSION_TARGETS + 1 }, (_, i) => into(`ns-${i}`)).join(' && ');
    const wide = reviewer((_, attributes) => attributes.namespace === undefined);
    expect(await checkGeneratePermissions(gpol(many), alice, { reviewer: wide.port, resolve })).toEqual([]);
    expect(wide.asked.map((request) => request.resourceAttributes)).toEqual([
      { group: '', resource: 'configmaps', verb: 'get' },
      { group: '', resource: 'configmaps', verb: 'create' },
    ]);
  });
});

describe('authorCheckNeeded', () => {
  it('asks on create and on a spec change, not on a metadata-only update', () => {
    const policy = gpol(CONFIGMAP_INTO_TARGET);
    expect(authorCheckNeeded(policy, undefined)).toBe(true);
    expect(authorCheckNeeded({ ...policy, metadata: { name: 'gen', labels: { a: 'b' } } }, policy)).toBe(false);
    expect(authorCheckNeeded(gpol(CONFIGMAP_INTO_TARGET.replace('target', 'other')), policy)).toBe(true);
  });
});
