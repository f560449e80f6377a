import { describe, expect, it } from 'vitest';
import { type JsonObject, type KubeObject, type LabelSelector, matchesLabelSelector } from '@edict/foundation';
import { Engine, type EngineDependencies } from '../../engine/engine';
import type { ResourceLoader } from '../../core/loaders';
import type { AccessReviewDecision, AccessReviewRequest } from '@edict/cel';
import type { ResourceRequest, RuleResponse } from '../../core/types';
import type { CelValidation, Policy, Rule } from '../../policy/types';

const deployment = (name: string, replicas: number, namespace = 'shop', labels: Record<string, string> = {}) =>
  ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, labels },
    spec: { replicas, template: { spec: { containers: [{ name: 'app', image: 'example.com/app' }] } } },
  }) as KubeObject;

const namespace = (name: string, labels: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, labels },
});

const limit = (name: string, ns: string | undefined, maxReplicas: number, labels: Record<string, string> = {}) =>
  ({
    apiVersion: 'rules.example.com/v1',
    kind: 'ReplicaLimit',
    metadata: { name, ...(ns ? { namespace: ns } : {}), labels },
    maxReplicas,
  }) as KubeObject;

/** A cluster of fixed objects; ReplicaLimit is namespaced, ClusterLimit is not, other kinds unknown. */
function cluster(objects: KubeObject[]): ResourceLoader {
  return {
    get: (apiVersion, kind, ns, name) =>
      objects.find((o) => o.kind === kind && o.metadata.name === name && o.metadata.namespace === ns),
    list: (apiVersion, kind, ns, selector) =>
      objects.filter(
        (o) =>
          o.kind === kind &&
          o.metadata.namespace === ns &&
          matchesLabelSelector((selector ?? {}) as LabelSelector, o.metadata.labels),
      ),
    namespaced: (apiVersion, kind) =>
      ({ ReplicaLimit: true, Namespace: false, ClusterLimit: false })[kind] as boolean | undefined,
  };
}

function rule(cel: CelValidation, extra: Partial<Rule> = {}): Rule {
  return { name: 'replicas', match: { any: [{ resources: { kinds: ['Deployment'] } }] }, validate: { cel }, ...extra };
}

async function evaluate(
  rules: Rule[],
  request: ResourceRequest,
  deps: EngineDependencies = {},
  kind: Policy['kind'] = 'ClusterPolicy',
): Promise<RuleResponse[]> {
  const engine = new Engine(deps);
  const policy: Policy = {
    apiVersion: 'kyverno.io/v1',
    kind,
    metadata: { name: 'cel', ...(kind === 'Policy' ? { namespace: 'shop' } : {}) },
    spec: { rules },
  };
  return (await engine.validate(engine.compile(policy), request)).rules;
}

const create = (resource: KubeObject, extra: Partial<ResourceRequest> = {}): ResourceRequest => ({
  resource,
  operation: 'CREATE',
  ...extra,
});
const summary = (responses: RuleResponse[]) => responses.map((r) => [r.name, r.status, r.message]);

describe('validate.cel', () => {
  it('passes, or fails with the first failing expression message as Kubernetes picks it', async () => {
    const cel: CelValidation = {
      expressions: [
        { expression: 'object.spec.replicas >= 1', message: 'at least one replica' },
        {
          expression: 'object.spec.replicas <= 3',
          messageExpression: "'replicas must be at most 3, not ' + string(object.spec.replicas)",
        },
      ],
    };
    expect(summary(await evaluate([rule(cel)], create(deployment('ok', 2))))).toEqual([
      ['replicas', 'pass', "Validation rule 'replicas' passed."],
    ]);
    expect(summary(await evaluate([rule(cel)], create(deployment('zero', 0))))).toEqual([
      ['replicas', 'fail', 'at least one replica'],
    ]);
    expect(summary(await evaluate([rule(cel)], create(deployment('many', 5))))).toEqual([
      ['replicas', 'fail', 'replicas must be at most 3, not 5'],
    ]);
  });

  it("falls back from a failed messageExpression to the message, the rule's message, then the expression", async () => {
    const broken = { expression: 'false', messageExpression: 'object.nope', message: 'static message' };
    const responses = await evaluate(
      [
        rule({ expressions: [broken] }, { name: 'a' }),
        {
          ...rule({ expressions: [{ expression: 'false' }] }, { name: 'b' }),
          validate: { message: 'rule message', cel: { expressions: [{ expression: 'false' }] } },
        },
        rule({ expressions: [{ expression: ' 1 == 2 ' }] }, { name: 'c' }),
      ],
      create(deployment('d', 1)),
    );
    expect(responses.map((r) => r.message)).toEqual(['static message', 'rule message', 'failed expression: 1 == 2']);
  });

  it('fails with the error of an expression that cannot be evaluated, as Kyverno denies on errors', async () => {
    const responses = await evaluate(
      [rule({ expressions: [{ expression: 'object.spec.missing > 1' }] })],
      create(deployment('d', 1)),
    );
    expect(summary(responses)).toEqual([
      [
        'replicas',
        'fail',
        "expression 'object.spec.missing > 1' resulted in error: No such key: missing (at character 13)",
      ],
    ]);
  });

  it('composes variables lazily, each evaluated once, and lets messages use them', async () => {
    const cel: CelValidation = {
      variables: [
        {
          name: 'environment',
          expression:
            "'environment' in namespaceObject.metadata.labels ? namespaceObject.metadata.labels['environment'] : 'prod'",
        },
        { name: 'images', expression: 'object.spec.template.spec.containers.map(c, c.image)' },
        { name: 'unused', expression: 'object.no.such.field' },
      ],
      expressions: [
        {
          expression: "variables.images.all(i, i.startsWith(variables.environment + '.'))",
          messageExpression:
            "'only ' + variables.environment + ' images are allowed in namespace ' + namespaceObject.metadata.name",
        },
      ],
    };
    const deps = { resources: cluster([namespace('shop', { environment: 'staging' })]) };
    expect(summary(await evaluate([rule(cel)], create(deployment('d', 1)), deps))).toEqual([
      ['replicas', 'fail', 'only staging images are allowed in namespace shop'],
    ]);
  });

  it('skips when a celPrecondition is false, and fails with the error of one that cannot be evaluated', async () => {
    const cel = { expressions: [{ expression: 'false' }] };
    const skip = rule(cel, { celPreconditions: [{ name: 'only-big', expression: 'object.spec.replicas > 10' }] });
    const broken = rule(cel, { name: 'broken', celPreconditions: [{ name: 'typo', expression: 'object.nope' }] });
    expect(summary(await evaluate([skip, broken], create(deployment('d', 1))))).toEqual([
      ['replicas', 'skip', 'cel preconditions not met'],
      [
        'broken',
        'fail',
        `celPrecondition "typo": expression 'object.nope' resulted in error: No such key: nope (at character 8)`,
      ],
    ]);
  });

  it('sees null as object on DELETE and the old object as oldObject', async () => {
    const cel = { expressions: [{ expression: 'object == null && oldObject.metadata.name == "gone"', message: 'x' }] };
    const responses = await evaluate([rule(cel)], { operation: 'DELETE', oldResource: deployment('gone', 1) });
    expect(responses.map((r) => r.status)).toEqual(['pass']);
  });

  it('reads namespaceObject from the cluster, or makes it from the name (and known labels) without one', async () => {
    const cel = { expressions: [{ expression: "namespaceObject.metadata.labels['team'] == 'a'" }] };
    expect(
      (await evaluate([rule(cel)], create(deployment('d', 1), { namespaceLabels: { team: 'a' } })))[0]!.status,
    ).toBe('pass');
    const gone = await evaluate([rule(cel)], create(deployment('d', 1)), { resources: cluster([]) });
    expect(summary(gone)).toEqual([
      ['replicas', 'error', `Error getting the resource's namespace: namespaces "shop" not found`],
    ]);
  });

  it('makes namespaceObject from the name offline, even when a resource loader serves other reads', async () => {
    const cel = { expressions: [{ expression: "namespaceObject.metadata.name != 'default'" }] };
    const offline = { resources: cluster([]), offline: true };
    expect(summary(await evaluate([rule(cel)], create(deployment('d', 1, 'default')), offline))).toEqual([
      ['replicas', 'fail', "failed expression: namespaceObject.metadata.name != 'default'"],
    ]);
    expect(summary(await evaluate([rule(cel)], create(deployment('d', 1, 'staging')), offline))[0]![1]).toBe('pass');
  });

  describe('parameters', () => {
    const cel = (paramRef: CelValidation['paramRef'], kind = 'ReplicaLimit'): CelValidation => ({
      paramKind: { apiVersion: 'rules.example.com/v1', kind },
      paramRef,
      expressions: [
        {
          expression: 'object.spec.replicas <= params.maxReplicas',
          messageExpression: "'at most ' + string(params.maxReplicas) + ' replicas'",
        },
      ],
    });
    const objects = [
      namespace('shop'),
      limit('limit', 'shop', 3, { tier: 'a' }),
      limit('strict', 'shop', 1, { tier: 'a' }),
      limit('limit', 'params', 1),
      { ...limit('global', undefined, 2), kind: 'ClusterLimit' } as KubeObject,
    ];
    const deps = { resources: cluster(objects) };
    const run = async (ref: CelValidation['paramRef'], replicas: number, kind?: string, policyKind?: Policy['kind']) =>
      summary(await evaluate([rule(cel(ref, kind))], create(deployment('d', replicas)), deps, policyKind))[0];

    it("reads a namespaced parameter from the request's namespace, or from paramRef.namespace", async () => {
      expect(await run({ name: 'limit', parameterNotFoundAction: 'Deny' }, 3)).toEqual([
        'replicas',
        'pass',
        "Validation rule 'replicas' passed.",
      ]);
      expect(await run({ name: 'limit', namespace: 'params', parameterNotFoundAction: 'Deny' }, 3)).toEqual([
        'replicas',
        'fail',
        'at most 1 replicas',
      ]);
    });

    it('reads a cluster-scoped parameter, and refuses a namespace for one', async () => {
      expect(await run({ name: 'global', parameterNotFoundAction: 'Deny' }, 3, 'ClusterLimit')).toEqual([
        'replicas',
        'fail',
        'at most 2 replicas',
      ]);
      expect(
        (await run({ name: 'global', namespace: 'x', parameterNotFoundAction: 'Deny' }, 3, 'ClusterLimit'))?.[2],
      ).toBe(
        'error in parameterized resource: paramRef.namespace must not be provided for a cluster-scoped `paramKind`',
      );
    });

    it('evaluates every parameter a selector picks; the first failure decides', async () => {
      expect(await run({ selector: { matchLabels: { tier: 'a' } }, parameterNotFoundAction: 'Deny' }, 2)).toEqual([
        'replicas',
        'fail',
        'at most 1 replicas',
      ]);
    });

    it('passes without parameters under Allow and errs under Deny', async () => {
      expect((await run({ name: 'missing', parameterNotFoundAction: 'Allow' }, 9))?.[1]).toBe('pass');
      expect(await run({ name: 'missing', parameterNotFoundAction: 'Deny' }, 9)).toEqual([
        'replicas',
        'error',
        'error in parameterized resource: no params found: ReplicaLimit shop/missing does not exist',
      ]);
      expect((await run({ name: 'x', parameterNotFoundAction: 'Deny' }, 1, 'Unserved'))?.[2]).toContain(
        'failed to check if resource is namespaced or not',
      );
    });

    it("keeps a namespaced Policy to its own namespace's parameters", async () => {
      expect(
        (
          await run({ name: 'limit', namespace: 'params', parameterNotFoundAction: 'Deny' }, 1, undefined, 'Policy')
        )?.[2],
      ).toBe(
        'error in parameterized resource: a Policy in namespace "shop" may read parameters of its own namespace only, not parameters of namespace "params"',
      );
    });
  });

  describe('authorizer', () => {
    const cel: CelValidation = {
      expressions: [
        {
          expression:
            "authorizer.serviceAccount('default', 'bot').group('apps').resource('deployments').namespace('default').check('delete').allowed()",
          message: 'the bot may not delete deployments',
        },
        {
          expression: "authorizer.requestResource.check('update').allowed() || object.spec.replicas < 3",
          message: 'no update',
        },
      ],
    };
    const admissionRequest = {
      resource: { group: 'apps', version: 'v1', resource: 'deployments' },
      namespace: 'shop',
      name: 'd',
    } as JsonObject;
    const request = create(deployment('d', 5), {
      admissionRequest,
      user: { userInfo: { username: 'alice', groups: ['devs'] } },
    });

    it('asks the reviewer once per distinct check, as the service account or the requesting user', async () => {
      const asked: AccessReviewRequest[] = [];
      const reviewer = {
        review: (question: AccessReviewRequest): AccessReviewDecision => {
          asked.push(question);
          return { allowed: question.user !== 'alice' };
        },
      };
      expect(summary(await evaluate([rule(cel)], request, { accessReviewer: reviewer }))).toEqual([
        ['replicas', 'fail', 'no update'],
      ]);
      expect(asked).toEqual([
        {
          user: 'system:serviceaccount:default:bot',
          groups: ['system:serviceaccounts', 'system:serviceaccounts:default'],
          resourceAttributes: { group: 'apps', resource: 'deployments', namespace: 'default', verb: 'delete' },
        },
        {
          user: 'alice',
          groups: ['devs'],
          resourceAttributes: {
            group: 'apps',
            version: 'v1',
            resource: 'deployments',
            subresource: '',
            namespace: 'shop',
            name: 'd',
            verb: 'update',
          },
        },
      ]);
    });

    it('treats a review that cannot be made as an errored decision, not allowed', async () => {
      const responses = await evaluate([rule(cel)], request);
      expect(summary(responses)).toEqual([['replicas', 'fail', 'the bot may not delete deployments']]);
    });

    it('bounds the number of checks of one rule', async () => {
      const many: CelValidation = {
        expressions: [
          {
            expression:
              "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map(i, [0, 1, 2, 3].map(j, authorizer.path('/p/' + string(i) + '/' + string(j)).check('get').allowed())).size() > 0",
          },
        ],
      };
      const responses = await evaluate([rule(many)], request, {
        accessReviewer: { review: () => ({ allowed: true }) },
      });
      expect(summary(responses)).toEqual([
        ['replicas', 'error', 'CEL authorizer checks exceed the limit of 32 per rule'],
      ]);
    });
  });

  it('ends the rule in error past the step budget', async () => {
    const hundred = `[${Array.from({ length: 100 }, (_, i) => i).join(',')}]`;
    const heavy = `${hundred}.all(a, ${hundred}.all(b, ${hundred}.all(c, ${hundred}.all(d, true))))`;
    const responses = await evaluate([rule({ expressions: [{ expression: heavy }] })], create(deployment('d', 1)));
    expect(summary(responses)).toEqual([['replicas', 'error', 'CEL evaluation exceeded its budget of 1000000 steps']]);
  });

  it('answers error for an expression that does not compile (a policy admitted without Edict checking it)', async () => {
    const responses = await evaluate(
      [rule({ expressions: [{ expression: 'object.spec.replicas <' }] })],
      create(deployment('d', 1)),
    );
    expect(summary(responses)).toEqual([
      [
        'replicas',
        'error',
        'failed to compile validate.cel: validate.cel.expressions[0].expression: Unexpected token: EOF (at character 23)',
      ],
    ]);
  });

  it('runs the autogen copies of a Pod rule on the pod template', async () => {
    const podRule: Rule = {
      name: 'no-latest',
      match: { any: [{ resources: { kinds: ['Pod'] } }] },
      validate: {
        cel: {
          expressions: [
            { expression: "object.spec.containers.all(c, !c.image.endsWith(':latest'))", message: 'no latest' },
          ],
        },
      },
    };
    const latest = deployment('d', 1);
    (latest.spec as JsonObject).template = { spec: { containers: [{ name: 'a', image: 'nginx:latest' }] } };
    expect(summary(await evaluate([podRule], create(latest)))).toEqual([['autogen-no-latest', 'fail', 'no latest']]);
  });
});
