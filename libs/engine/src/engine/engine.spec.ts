import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@edict/foundation';
import type { Policy, PolicyException, Rule } from '../policy/types';
import { Engine } from './engine';
import type { ContextLoaders, LoaderScope } from '../core/loaders';
import type { ResourceRequest } from '../core/types';

function pod(name: string, labels: Record<string, string> = {}, namespace = 'shop'): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, labels },
    spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
  };
}

const requireTeam: Rule = {
  name: 'require-team',
  match: { any: [{ resources: { kinds: ['Pod'] } }] },
  validate: { message: 'team label is required', pattern: { metadata: { labels: { team: '?*' } } } },
};

function policy(rules: Rule[], spec: Partial<Policy['spec']> = {}, kind: Policy['kind'] = 'ClusterPolicy'): Policy {
  return {
    apiVersion: 'kyverno.io/v1',
    kind,
    metadata: { name: 'labels', ...(kind === 'Policy' ? { namespace: 'shop' } : {}) },
    spec: { validationFailureAction: 'Enforce', rules, ...spec },
  };
}

async function validate(
  rules: Rule[],
  request: ResourceRequest,
  spec: Partial<Policy['spec']> = {},
  exceptions: PolicyException[] = [],
) {
  const engine = new Engine({ exceptions: () => exceptions });
  return engine.validate(engine.compile(policy(rules, spec)), request);
}

const create = (resource: KubeObject): ResourceRequest => ({ operation: 'CREATE', resource });
const statuses = (response: { rules: { name: string; status: string }[] }) =>
  response.rules.map((rule) => `${rule.name}:${rule.status}`);

describe('Engine.validate', () => {
  it('passes and fails patterns with Kyverno messages', async () => {
    const passed = await validate([requireTeam], create(pod('a', { team: 'x' })));
    expect(passed.rules).toMatchObject([{ status: 'pass', message: "validation rule 'require-team' passed." }]);
    const failed = await validate([requireTeam], create(pod('b')));
    expect(failed.rules[0]).toMatchObject({
      status: 'fail',
      failureAction: 'Enforce',
      message: 'validation error: team label is required. rule require-team failed at path /metadata/labels/team/',
    });
  });

  it('gives no response for rules that do not match', async () => {
    const configMap: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'shop' } };
    expect((await validate([requireTeam], create(configMap))).rules).toEqual([]);
  });

  it('skips a rule whose preconditions do not hold, with the condition message', async () => {
    const rule: Rule = {
      ...requireTeam,
      preconditions: {
        all: [
          { key: '{{ request.object.metadata.name }}', operator: 'Equals', value: 'web-*', message: 'only web pods' },
        ],
      },
    };
    const response = await validate([rule], create(pod('db')));
    expect(response.rules[0]).toMatchObject({ status: 'skip', message: 'preconditions not met; only web pods' });
  });

  it('errors when the rule reads a variable that does not exist', async () => {
    const rule: Rule = {
      ...requireTeam,
      validate: {
        deny: {
          conditions: { any: [{ key: '{{ request.object.spec.missing.field }}', operator: 'Equals', value: 'x' }] },
        },
      },
    };
    const response = await validate([rule], create(pod('a')));
    expect(response.rules[0].status).toBe('error');
    expect(response.rules[0].message).toContain('failed to substitute variables in condition key');
  });

  it('skips a rule covered by a matching PolicyException', async () => {
    const exception: PolicyException = {
      apiVersion: 'kyverno.io/v2',
      kind: 'PolicyException',
      metadata: { name: 'legacy', namespace: 'shop' },
      spec: {
        exceptions: [{ policyName: 'labels', ruleNames: ['require-team'] }],
        match: { any: [{ resources: { kinds: ['Pod'], names: ['legacy-*'] } }] },
      },
    };
    const covered = await validate([requireTeam], create(pod('legacy-1')), {}, [exception]);
    expect(covered.rules[0]).toMatchObject({ status: 'skip', exceptions: ['shop/legacy'] });
    const other = await validate([requireTeam], create(pod('fresh-1')), {}, [exception]);
    expect(other.rules[0].status).toBe('fail');
  });

  it("checks preconditions (and context) before PolicyExceptions, as Kyverno's engine does", async () => {
    const exception: PolicyException = {
      apiVersion: 'kyverno.io/v2',
      kind: 'PolicyException',
      metadata: { name: 'everything', namespace: 'shop' },
      spec: {
        exceptions: [{ policyName: 'labels', ruleNames: ['require-team'] }],
        match: { any: [{ resources: { kinds: ['Pod'] } }] },
      },
    };
    const notWeb: Rule = {
      ...requireTeam,
      preconditions: { all: [{ key: '{{ request.object.metadata.name }}', operator: 'Equals', value: 'web-*' }] },
    };
    const skipped = await validate([notWeb], create(pod('db')), {}, [exception]);
    expect(skipped.rules[0]).toMatchObject({ status: 'skip', message: 'preconditions not met' });
    expect(skipped.rules[0].exceptions).toBeUndefined();
    const web = await validate([notWeb], create(pod('web-1')), {}, [exception]);
    expect(web.rules[0]).toMatchObject({ status: 'skip', exceptions: ['shop/everything'] });

    // a context entry that cannot load fails the preconditions that read it, before exceptions
    const brokenContext: Rule = {
      ...requireTeam,
      context: [{ name: 'x', variable: { jmesPath: 'request.object.spec.nothing.here' } }],
      preconditions: { all: [{ key: '{{ x }}', operator: 'Equals', value: 'y' }] },
    };
    const errored = await validate([brokenContext], create(pod('a')), {}, [exception]);
    expect(errored.rules[0].status).toBe('error');
    expect(errored.rules[0].message).toContain('failed to evaluate preconditions');
  });

  it('stops at the first applied rule with applyRules: One', async () => {
    const second: Rule = { ...requireTeam, name: 'second' };
    const response = await validate([requireTeam, second], create(pod('a')), { applyRules: 'One' });
    expect(statuses(response)).toEqual(['require-team:fail']);
  });

  it('applies a namespaced Policy only in its own namespace', async () => {
    const engine = new Engine();
    const compiled = engine.compile(policy([requireTeam], {}, 'Policy'));
    expect((await engine.validate(compiled, create(pod('a', {}, 'shop')))).rules).toHaveLength(1);
    expect((await engine.validate(compiled, create(pod('a', {}, 'other')))).rules).toHaveLength(0);
  });

  it("applies a policy only where its own webhookConfiguration.matchConditions hold (Kyverno's MatchPolicyContext)", async () => {
    const engine = new Engine();
    const compiled = engine.compile(
      policy([requireTeam], {
        webhookConfiguration: {
          matchConditions: [
            { name: 'shop-only', expression: 'object.metadata.namespace == "shop"' },
            { name: 'not-nodes', expression: '!("system:nodes" in request.userInfo.groups)' },
          ],
        },
      }),
    );
    const as = (groups: string[], namespace: string): ResourceRequest => ({
      ...create(pod('a', {}, namespace)),
      user: { userInfo: { username: 'u', groups } },
    });
    expect((await engine.validate(compiled, as(['dev'], 'shop'))).rules).toHaveLength(1);
    expect((await engine.validate(compiled, as(['dev'], 'other'))).rules).toHaveLength(0);
    expect((await engine.validate(compiled, as(['system:nodes'], 'shop'))).rules).toHaveLength(0);
    // A condition that fails to evaluate is a mismatch (no userInfo: no groups to look in).
    expect((await engine.validate(compiled, create(pod('a', {}, 'shop')))).rules).toHaveLength(0);
  });

  it('runs autogen copies on pod controllers', async () => {
    const deployment: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'shop' },
      spec: {
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'nginx' }] } },
      },
    };
    const response = await validate([requireTeam], create(deployment));
    expect(statuses(response)).toEqual(['autogen-require-team:fail']);
  });

  describe('on UPDATE with Enforce', () => {
    const update = (oldLabels: Record<string, string>): ResourceRequest => ({
      operation: 'UPDATE',
      resource: pod('a'),
      oldResource: pod('a', oldLabels),
    });

    it('skips a violation the old object already had', async () => {
      const response = await validate([requireTeam], update({}));
      expect(response.rules[0]).toMatchObject({
        status: 'skip',
        message: 'skipping the rule evaluation as pre-existing violations are allowed',
      });
    });

    it('fails a violation the update introduces', async () => {
      expect((await validate([requireTeam], update({ team: 'x' }))).rules[0].status).toBe('fail');
    });

    it('fails an existing violation when allowExistingViolations is false', async () => {
      const strict: Rule = { ...requireTeam, validate: { ...requireTeam.validate, allowExistingViolations: false } };
      expect((await validate([strict], update({}))).rules[0].status).toBe('fail');
    });

    it('reports Audit violations as they are', async () => {
      const response = await validate([requireTeam], update({}), { validationFailureAction: 'Audit' });
      expect(response.rules[0]).toMatchObject({ status: 'fail', failureAction: 'Audit' });
    });
  });

  it('uses the failure action override for the resource namespace', async () => {
    const response = await validate([requireTeam], create(pod('a')), {
      validationFailureAction: 'Audit',
      validationFailureActionOverrides: [{ action: 'Enforce', namespaces: ['sh*'] }],
    });
    expect(response.rules[0].failureAction).toBe('Enforce');
  });

  it('errors every matching rule when an image reference cannot be parsed', async () => {
    const broken = pod('a', { team: 'x' });
    (broken.spec as { containers: { image: string }[] }).containers[0].image = 'UPPER CASE:!';
    const response = await validate([requireTeam], create(broken));
    expect(response.rules[0].status).toBe('error');
    expect(response.rules[0].message).toContain('failed to build the policy context');
  });
});

describe('Engine.validate deny rules', () => {
  const denyLatest = (message?: string): Rule => ({
    name: 'no-latest',
    match: { any: [{ resources: { kinds: ['Pod'] } }] },
    validate: {
      ...(message ? { message } : {}),
      deny: {
        conditions: {
          any: [
            {
              key: '{{ images.containers.*.tag }}',
              operator: 'AnyIn',
              value: ['latest'],
              message: 'tag latest is used',
            },
          ],
        },
      },
    },
  });
  const latestPod = (): KubeObject => {
    const resource = pod('a');
    (resource.spec as { containers: { image: string }[] }).containers[0].image = 'nginx:latest';
    return resource;
  };

  it('joins the rule message and the denying conditions messages', async () => {
    const response = await validate([denyLatest('pin your images')], create(latestPod()));
    expect(response.rules[0]).toMatchObject({ status: 'fail', message: 'pin your images; tag latest is used' });
  });

  it('falls back to the condition message, then to the default text', async () => {
    expect((await validate([denyLatest()], create(latestPod()))).rules[0].message).toBe('tag latest is used');
    expect((await validate([denyLatest()], create(pod('a')))).rules[0].status).toBe('pass');
  });

  it('judges every UPDATE on its own, even when the old object was denied too', async () => {
    const response = await validate([denyLatest()], {
      operation: 'UPDATE',
      resource: latestPod(),
      oldResource: latestPod(),
    });
    expect(response.rules[0].status).toBe('fail');
  });
});

describe('Engine: who asks the context loaders', () => {
  const lookups: Array<{ kind: string; args: unknown[] }> = [];
  const loaders: ContextLoaders = {
    configMap: (namespace, name, scope) => {
      lookups.push({ kind: 'configMap', args: [namespace, name, scope] });
      return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { team: 'web' } };
    },
    apiCall: (call, scope) => {
      lookups.push({ kind: 'apiCall', args: [call.urlPath, scope] });
      return { items: [] };
    },
    globalReference: (name, scope) => {
      lookups.push({ kind: 'globalReference', args: [name, scope] });
      return { ok: true };
    },
    imageRegistry: (reference, credentials, scope) => {
      lookups.push({ kind: 'imageRegistry', args: [reference, credentials, scope] });
      return { manifest: {} };
    },
  };
  const withContext: Rule = {
    ...requireTeam,
    context: [
      { name: 'settings', configMap: { name: 'settings' } },
      { name: 'pods', apiCall: { urlPath: '/api/v1/namespaces/shop/pods' } },
      { name: 'shared', globalReference: { name: 'shared' } },
      { name: 'image', imageRegistry: { reference: 'nginx:1.27', imageRegistryCredentials: { secrets: ['regcred'] } } },
    ],
  };

  it("passes a namespaced Policy's namespace, and reads an unqualified ConfigMap from it (as Kyverno does)", async () => {
    lookups.length = 0;
    const engine = new Engine({ loaders });
    await engine.validate(engine.compile(policy([withContext], {}, 'Policy')), {
      operation: 'CREATE',
      resource: pod('a', { team: 'x' }),
    });
    const scope = { policyNamespace: 'shop' };
    expect(lookups).toEqual([
      { kind: 'configMap', args: ['shop', 'settings', scope] },
      { kind: 'apiCall', args: ['/api/v1/namespaces/shop/pods', scope] },
      { kind: 'globalReference', args: ['shared', scope] },
      { kind: 'imageRegistry', args: ['nginx:1.27', { secrets: ['regcred'] }, scope] },
    ]);
  });

  it('passes no namespace for a ClusterPolicy, whose unqualified ConfigMap is in default', async () => {
    lookups.length = 0;
    const engine = new Engine({ loaders });
    await engine.validate(engine.compile(policy([withContext])), {
      operation: 'CREATE',
      resource: pod('a', { team: 'x' }),
    });
    expect(lookups[0]).toEqual({ kind: 'configMap', args: ['default', 'settings', { policyNamespace: undefined }] });
    expect(lookups.every((lookup) => (lookup.args.at(-1) as LoaderScope).policyNamespace === undefined)).toBe(true);
  });
});

describe('Engine: a context entry that cannot load', () => {
  const refused = 'refused: 10.0.0.1 is a private address (egress block list) calling http://10.0.0.1/';
  const loaders: ContextLoaders = {
    configMap: () => Promise.reject(new Error('unused')),
    apiCall: () => Promise.reject(new Error(refused)),
    globalReference: () => Promise.reject(new Error('unused')),
    imageRegistry: () => Promise.reject(new Error('unused')),
  };
  const readsRemote = (key: string): Rule => ({
    name: 'remote',
    match: { any: [{ resources: { kinds: ['Pod'] } }] },
    context: [{ name: 'remote', apiCall: { service: { url: 'http://10.0.0.1/' } } }],
    validate: { message: 'denied', deny: { conditions: { any: [{ key, operator: 'Equals', value: 'x' }] } } },
  });

  it("fails a rule that reads it with the loader's reason, and leaves a rule that does not read it alone", async () => {
    const engine = new Engine({ loaders });
    const reading = await engine.validate(
      engine.compile(policy([readsRemote('{{ remote.answer }}')])),
      create(pod('a')),
    );
    expect(reading.rules[0]?.status).toBe('error');
    expect(reading.rules[0]?.message).toContain(`context entry remote could not be loaded: ${refused}`);
    const ignoring = await engine.validate(
      engine.compile(policy([readsRemote('{{ request.object.kind }}')])),
      create(pod('a')),
    );
    expect(ignoring.rules[0]?.status).toBe('pass');
  });
});
