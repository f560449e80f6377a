// ValidatingAdmissionPolicy in the server's admission chain, over HTTP, with kube-apiserver's answers.
import type { JsonObject } from '@edict/foundation';
import { afterEach, describe, expect, it } from 'vitest';
import type { InMemoryApiServerOptions } from '../api-server';
import { startServer, type Running } from '../testing/http';

const V1 = 'admissionregistration.k8s.io/v1';
const VAPS = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies';
const BINDINGS = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings';
const CMS = '/api/v1/namespaces/default/configmaps';

let running: Running | undefined;

afterEach(async () => {
  await running?.server.stop();
  running = undefined;
});

async function server(options: InMemoryApiServerOptions = {}): Promise<Running> {
  running = await startServer(options);
  return running;
}

const CM_RULE = { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['configmaps'] };

function policy(name: string, spec: JsonObject = {}): JsonObject {
  return {
    apiVersion: V1,
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name },
    spec: {
      matchConstraints: { resourceRules: [CM_RULE] },
      validations: [{ expression: "has(object.data) && 'team' in object.data", message: 'data.team is required' }],
      ...spec,
    },
  };
}

function binding(name: string, policyName: string, spec: JsonObject = {}): JsonObject {
  return {
    apiVersion: V1,
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name },
    spec: { policyName, validationActions: ['Deny'], ...spec },
  };
}

function configMap(name: string, data: Record<string, string> = {}, labels: Record<string, string> = {}): JsonObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data };
}

async function install(api: Running, ...objects: JsonObject[]): Promise<void> {
  for (const object of objects) {
    const path = object.kind === 'ValidatingAdmissionPolicy' ? VAPS : BINDINGS;
    const { status, body } = await api.request('POST', path, object);
    expect(status, JSON.stringify(body)).toBe(201);
  }
}

/** A write with its `Warning` headers (kube's `299 - "<text>"`). */
async function write(
  api: Running,
  method: string,
  path: string,
  body: JsonObject,
): Promise<{ status: number; body: JsonObject; warnings: string[] }> {
  const response = await fetch(`${api.url}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const warnings = (response.headers.get('warning') ?? '')
    .split(/,\s*(?=299 )/)
    .filter(Boolean)
    .map((header) => JSON.parse(header.replace(/^299 - /, '')) as string);
  return { status: response.status, body: (await response.json()) as JsonObject, warnings };
}

describe('ValidatingAdmissionPolicy admission', () => {
  it('is served in admissionregistration.k8s.io/v1 and stored with kube defaults', async () => {
    const api = await server();
    await install(api, policy('needs-team'));
    const { body } = await api.request('GET', `${VAPS}/needs-team`);
    expect(body.spec).toMatchObject({
      failurePolicy: 'Fail',
      matchConstraints: {
        matchPolicy: 'Equivalent',
        namespaceSelector: {},
        objectSelector: {},
        resourceRules: [{ ...CM_RULE, scope: '*' }],
      },
    });
  });

  it('refuses a policy whose expression does not compile, naming the field', async () => {
    const api = await server();
    const bad = policy('bad', { validations: [{ expression: 'object.data ==' }] });
    const { status, body } = await api.request('POST', VAPS, bad);
    expect(status).toBe(422);
    expect(body.reason).toBe('Invalid');
    expect(String(body.message)).toContain('spec.validations[0].expression');
  });

  it("denies with the policy's message in kube's words, 422 Invalid, and the cause", async () => {
    const api = await server();
    await install(api, policy('needs-team'), binding('needs-team-binding', 'needs-team'));
    const { status, body } = await write(api, 'POST', CMS, configMap('no-team'));
    const denial =
      "ValidatingAdmissionPolicy 'needs-team' with binding 'needs-team-binding' denied request: data.team is required";
    expect(status).toBe(422);
    expect(body).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'Invalid',
      code: 422,
      message: `configmaps "no-team" is forbidden: ${denial}`,
      details: { name: 'no-team', kind: 'configmaps', causes: [{ message: denial }] },
    });
    expect((await write(api, 'POST', CMS, configMap('with-team', { team: 'a' }))).status).toBe(201);
    expect(api.server.get('v1', 'ConfigMap', 'no-team', 'default')).toBeUndefined();
  });

  it('does nothing without a binding, and a binding of another policy does not bind it', async () => {
    const api = await server();
    await install(
      api,
      policy('needs-team'),
      policy('other'),
      binding('other-binding', 'other', { validationActions: ['Warn'] }),
    );
    const { status, warnings } = await write(api, 'POST', CMS, configMap('x'));
    expect(status).toBe(201);
    expect(warnings).toEqual([
      "Validation failed for ValidatingAdmissionPolicy 'other' with binding 'other-binding': data.team is required",
    ]);
  });

  it('uses messageExpression, reason and code', async () => {
    const api = await server();
    await install(
      api,
      policy('forbidden', {
        validations: [
          {
            expression: "object.metadata.name != 'root'",
            messageExpression: "'name ' + object.metadata.name + ' is reserved'",
            reason: 'Forbidden',
          },
        ],
      }),
      binding('forbidden', 'forbidden'),
    );
    const { status, body } = await write(api, 'POST', CMS, configMap('root'));
    expect(status).toBe(403);
    expect(body.reason).toBe('Forbidden');
    expect(body.message).toBe(
      "configmaps \"root\" is forbidden: ValidatingAdmissionPolicy 'forbidden' with binding 'forbidden' denied request: name root is reserved",
    );
  });

  it('Warn answers with Warning headers and admits; Audit writes the validation_failure annotation', async () => {
    const api = await server();
    await install(api, policy('needs-team'), binding('warn', 'needs-team', { validationActions: ['Warn', 'Audit'] }));
    const { status, warnings } = await write(api, 'POST', CMS, configMap('no-team'));
    expect(status).toBe(201);
    expect(warnings).toEqual([
      "Validation failed for ValidatingAdmissionPolicy 'needs-team' with binding 'warn': data.team is required",
    ]);
    const [entry] = api.server.audit.requests();
    expect(entry).toMatchObject({ operation: 'CREATE', resource: 'configmaps', namespace: 'default', name: 'no-team' });
    expect(JSON.parse(entry!.annotations['validation.policy.admission.k8s.io/validation_failure']!)).toEqual([
      {
        message: 'data.team is required',
        policy: 'needs-team',
        binding: 'warn',
        expressionIndex: 0,
        validationActions: ['Warn', 'Audit'],
      },
    ]);
  });

  it('publishes auditAnnotations keyed <policy>/<key>, with variables', async () => {
    const api = await server();
    await install(
      api,
      policy('audited', {
        variables: [
          { name: 'owner', expression: "has(object.data) && 'team' in object.data ? object.data.team : 'none'" },
        ],
        validations: [{ expression: 'true' }],
        auditAnnotations: [{ key: 'owner', valueExpression: "'owned by ' + variables.owner" }],
      }),
      binding('audited', 'audited'),
    );
    expect((await write(api, 'POST', CMS, configMap('a', { team: 'blue' }))).status).toBe(201);
    expect(api.server.audit.requests().map((entry) => entry.annotations)).toEqual([
      { 'audited/owner': 'owned by blue' },
    ]);
  });

  it('matches the binding by namespaceSelector and objectSelector, and excludes by excludeResourceRules', async () => {
    const api = await server();
    await api.request('POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'prod', labels: { env: 'prod' } },
    });
    await install(
      api,
      policy('needs-team', {
        matchConstraints: {
          resourceRules: [CM_RULE],
          excludeResourceRules: [{ ...CM_RULE, resourceNames: ['excluded'] }],
        },
      }),
      binding('prod-only', 'needs-team', {
        matchResources: {
          namespaceSelector: { matchLabels: { env: 'prod' } },
          objectSelector: { matchExpressions: [{ key: 'skip', operator: 'DoesNotExist' }] },
        },
      }),
    );
    const prod = '/api/v1/namespaces/prod/configmaps';
    expect((await write(api, 'POST', CMS, configMap('in-default'))).status).toBe(201);
    expect((await write(api, 'POST', prod, configMap('in-prod'))).status).toBe(422);
    expect((await write(api, 'POST', prod, configMap('skipped', {}, { skip: 'yes' }))).status).toBe(201);
    expect((await write(api, 'POST', prod, configMap('excluded'))).status).toBe(201);
  });

  it('skips a request whose matchConditions are false', async () => {
    const api = await server();
    await install(
      api,
      policy('needs-team', {
        matchConditions: [{ name: 'not-system', expression: "!object.metadata.name.startsWith('system-')" }],
      }),
      binding('b', 'needs-team'),
    );
    expect((await write(api, 'POST', CMS, configMap('system-x'))).status).toBe(201);
    expect((await write(api, 'POST', CMS, configMap('user-x'))).status).toBe(422);
  });

  describe('params', () => {
    const paramPolicy = policy('max-keys', {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      matchConstraints: {
        resourceRules: [{ ...CM_RULE, resources: ['configmaps'] }],
        objectSelector: { matchLabels: { checked: 'yes' } },
      },
      validations: [
        {
          expression: 'size(object.data) <= int(params.data.max)',
          messageExpression: "'at most ' + params.data.max + ' keys'",
        },
      ],
    });

    it('reads the param by name in the request namespace, and by selector in paramRef.namespace', async () => {
      const api = await server();
      await write(api, 'POST', CMS, configMap('limits', { max: '1' }));
      await install(
        api,
        paramPolicy,
        binding('by-name', 'max-keys', { paramRef: { name: 'limits', parameterNotFoundAction: 'Deny' } }),
      );
      const checked = { checked: 'yes' };
      expect((await write(api, 'POST', CMS, configMap('one', { a: '1' }, checked))).status).toBe(201);
      const denied = await write(api, 'POST', CMS, configMap('two', { a: '1', b: '2' }, checked));
      expect(denied.status).toBe(422);
      expect(denied.body.message).toContain("with binding 'by-name' denied request: at most 1 keys");
    });

    it('denies when the param is missing and parameterNotFoundAction is Deny; admits with Allow', async () => {
      const api = await server();
      await install(
        api,
        paramPolicy,
        binding('deny-missing', 'max-keys', { paramRef: { name: 'absent', parameterNotFoundAction: 'Deny' } }),
      );
      const denied = await write(api, 'POST', CMS, configMap('x', {}, { checked: 'yes' }));
      expect(denied.status).toBe(422);
      expect(denied.body.message).toBe(
        "configmaps \"x\" is forbidden: ValidatingAdmissionPolicy 'max-keys' with binding 'deny-missing' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
      );
      await api.request('DELETE', `${BINDINGS}/deny-missing`);
      await install(
        api,
        binding('allow-missing', 'max-keys', {
          paramRef: { selector: { matchLabels: { kind: 'limits' } }, parameterNotFoundAction: 'Allow' },
        }),
      );
      expect((await write(api, 'POST', CMS, configMap('y', {}, { checked: 'yes' }))).status).toBe(201);
    });

    it('evaluates every param a selector selects', async () => {
      const api = await server();
      await write(api, 'POST', CMS, configMap('loose', { max: '5' }, { kind: 'limits' }));
      await write(api, 'POST', CMS, configMap('strict', { max: '1' }, { kind: 'limits' }));
      await install(
        api,
        paramPolicy,
        binding('all-limits', 'max-keys', {
          paramRef: { selector: { matchLabels: { kind: 'limits' } }, parameterNotFoundAction: 'Deny' },
        }),
      );
      const denied = await write(api, 'POST', CMS, configMap('two', { a: '1', b: '2' }, { checked: 'yes' }));
      expect(denied.status).toBe(422);
      expect(denied.body.message).toContain('at most 1 keys');
    });
  });

  describe('failurePolicy', () => {
    const erroring = (failurePolicy: string) =>
      policy(`erroring-${failurePolicy.toLowerCase()}`, {
        failurePolicy,
        validations: [{ expression: "object.data.missing == 'x'" }],
      });

    it('Fail denies on an evaluation error with the error as message', async () => {
      const api = await server();
      await install(api, erroring('Fail'), binding('b', 'erroring-fail'));
      const { status, body } = await write(api, 'POST', CMS, configMap('x', { a: '1' }));
      expect(status).toBe(422);
      expect(String(body.message)).toMatch(
        /^configmaps "x" is forbidden: ValidatingAdmissionPolicy 'erroring-fail' with binding 'b' denied request: expression 'object.data.missing == 'x'' resulted in error: /,
      );
    });

    it('Ignore admits on an evaluation error', async () => {
      const api = await server();
      await install(api, erroring('Ignore'), binding('b', 'erroring-ignore'));
      expect((await write(api, 'POST', CMS, configMap('x', { a: '1' }))).status).toBe(201);
    });
  });

  it("bounds an expression by the cost limit: Fail denies with kube's cost message", async () => {
    const api = await server();
    const digits = '[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]';
    const nested = `${digits}.all(a, ${digits}.all(b, ${digits}.all(c, ${digits}.all(d, ${digits}.all(e, ${digits}.all(f, ${digits}.all(g, true)))))))`;
    await install(api, policy('costly', { validations: [{ expression: nested }] }), binding('b', 'costly'));
    const { status, body } = await write(api, 'POST', CMS, configMap('x'));
    expect(status).toBe(422);
    expect(String(body.message)).toMatch(/operation cancelled: actual cost limit exceeded|running out of cost budget/);
  });

  it('runs before the validating webhooks: a denial is the only answer', async () => {
    const api = await server();
    await install(api, policy('needs-team'), binding('b', 'needs-team'));
    // A validating webhook that cannot be reached fails closed (failurePolicy Fail), so if it were
    // called the answer would be its 500, not the policy's 422.
    await api.request('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', {
      apiVersion: V1,
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'unreachable' },
      webhooks: [
        {
          name: 'unreachable.example.com',
          clientConfig: { url: 'https://127.0.0.1:1/validate' },
          rules: [CM_RULE],
          failurePolicy: 'Fail',
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
        },
      ],
    });
    const { status } = await write(api, 'POST', CMS, configMap('no-team'));
    expect(status).toBe(422);
  });
});
