// The runner is as strict as chainsaw: mutated tests a lenient runner passes must fail, and the
// real passes next to them must still pass. Against the in-memory API server.
import type { JsonObject } from '@edict/foundation';
import { createTestCa, startWebhookServer, type TestWebhookServer } from '@edict/apiserver/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterClient } from '../cluster/cluster-client';
import { TransientClusterError } from '../cluster/cluster-errors';
import { startChainsawTestCluster, writeTestFolder, type ChainsawTestCluster } from '../testing';
import type { ChainsawRunOptions, ChainsawTestResult } from './options';
import { runChainsawTests } from './run-tests';

let cluster: ChainsawTestCluster;
let webhook: TestWebhookServer;
beforeAll(async () => {
  cluster = await startChainsawTestCluster();
  const ca = await createTestCa();
  webhook = await startWebhookServer(await ca.issue({ ips: ['127.0.0.1'] }), () => ({
    allowed: false,
    status: { code: 403, message: 'refused by the test webhook' },
  }));
  // Refuses ConfigMaps labelled refuse=yes, as an admission controller refusing a write does.
  await cluster.client.create({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'chainsaw-strictness-refuse' },
    webhooks: [
      {
        name: 'refuse.chainsaw.edict.io',
        clientConfig: { url: webhook.url, caBundle: ca.caBundle },
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
        objectSelector: { matchLabels: { refuse: 'yes' } },
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
      },
    ],
  });
});
afterAll(async () => {
  await webhook?.close();
  await cluster?.stop();
});

const HEADER = 'apiVersion: chainsaw.kyverno.io/v1alpha1\nkind: Test\nmetadata:\n  name: t\nspec:\n';

async function runOne(spec: string, extra: Partial<ChainsawRunOptions> = {}): Promise<ChainsawTestResult> {
  const folder = writeTestFolder({ 'case/chainsaw-test.yaml': HEADER + spec });
  try {
    const results = await runChainsawTests({
      paths: [folder.root],
      kubeconfigPath: cluster.kubeconfigPath,
      timeoutScale: 0.05,
      timeoutFloorMs: 500,
      pollIntervalMs: 25,
      ...extra,
    });
    expect(results).toHaveLength(1);
    return results[0]!;
  } finally {
    folder.remove();
  }
}

const NO_MATCH = 'no matches for kind "Widget" in version "strictness.edict.io/v1"';
const widget = (indent: string, extra = '') =>
  [`apiVersion: strictness.edict.io/v1`, `kind: Widget`, `metadata:`, `  name: w`, ...extra.split('\n').filter(Boolean)]
    .map((line) => indent + line)
    .join('\n')
    .trimStart();

describe('a kind the server does not serve fails the operation (leniency A)', () => {
  it('fails an error operation: an unserved kind is not a missing object', async () => {
    const result = await runOne(`  steps:
  - try:
    - error:
        resource:
          ${widget('          ')}
`);
    expect(result.outcome).toBe('fail');
    expect(result.failure).toMatchObject({ operation: { type: 'error' }, reason: NO_MATCH });
  });

  it('fails an error operation on an unserved kind that names its namespace, and one in a served group', async () => {
    const namespaced = await runOne(`  steps:
  - try:
    - error:
        resource:
          ${widget('          ', '  namespace: default')}
`);
    expect(namespaced.failure?.reason).toBe(NO_MATCH);
    const servedGroup = await runOne(`  steps:
  - try:
    - error:
        resource:
          apiVersion: v1
          kind: Gizmo
          metadata:
            name: g
`);
    expect(servedGroup.failure?.reason).toBe('no matches for kind "Gizmo" in version "v1"');
  });

  it('fails a create and an apply whose expect wants an error, before expect is read', async () => {
    for (const type of ['create', 'apply']) {
      const result = await runOne(`  steps:
  - try:
    - ${type}:
        resource:
          ${widget('          ')}
        expect:
        - check:
            ($error != null): true
`);
      expect(result.outcome, type).toBe('fail');
      expect(result.failure, type).toMatchObject({ operation: { type }, reason: NO_MATCH });
    }
  });

  it('fails assert, delete, update and patch on an unserved kind', async () => {
    for (const type of ['assert', 'delete', 'update', 'patch']) {
      const body =
        type === 'delete'
          ? `ref:\n          apiVersion: strictness.edict.io/v1\n          kind: Widget\n          name: w`
          : `resource:\n          ${widget('          ')}`;
      const result = await runOne(`  steps:
  - try:
    - ${type}:
        ${body}
`);
      expect(result.failure, type).toMatchObject({ operation: { type }, reason: NO_MATCH });
    }
  });

  it('passes an error operation on a missing object of a served kind', async () => {
    const result = await runOne(`  steps:
  - try:
    - error:
        resource:
          apiVersion: v1
          kind: ConfigMap
          metadata:
            name: never-created
`);
    expect(result.failures).toEqual([]);
    expect(result.outcome).toBe('pass');
  });

  it('serves a kind whose CRD an earlier step installed, also a second kind of a group already looked up', async () => {
    const crd = (plural: string, kind: string) => `apiVersion: apiextensions.k8s.io/v1
          kind: CustomResourceDefinition
          metadata:
            name: ${plural}.later.edict.io
          spec:
            group: later.edict.io
            scope: Namespaced
            names:
              plural: ${plural}
              singular: ${kind.toLowerCase()}
              kind: ${kind}
            versions:
            - name: v1
              served: true
              storage: true
              schema:
                openAPIV3Schema:
                  type: object
                  x-kubernetes-preserve-unknown-fields: true`;
    const object = (kind: string) => `apiVersion: later.edict.io/v1
          kind: ${kind}
          metadata:
            name: one
          spec:
            size: 3`;
    const result = await runOne(`  steps:
  - try:
    - create:
        resource:
          ${crd('sprockets', 'Sprocket')}
  - try:
    - apply:
        resource:
          ${object('Sprocket')}
    - assert:
        resource:
          ${object('Sprocket')}
  - try:
    - create:
        resource:
          ${crd('cogs', 'Cog')}
  - try:
    - create:
        resource:
          ${object('Cog')}
    - error:
        resource:
          apiVersion: later.edict.io/v1
          kind: Cog
          metadata:
            name: two
`);
    expect(result.failures).toEqual([]);
    expect(result.outcome).toBe('pass');
  });
});

describe('a failed check on a write is final (leniency B)', () => {
  it('fails a create whose object is created while expect wants an error: no retry meets "already exists"', async () => {
    const result = await runOne(`  steps:
  - try:
    - create:
        resource:
          apiVersion: v1
          kind: ConfigMap
          metadata:
            name: created-once
        expect:
        - check:
            ($error != null): true
`);
    expect(result.outcome).toBe('fail');
    expect(result.failure).toMatchObject({ operation: { type: 'create' } });
    expect(result.failure!.reason).toContain('($error != null)');
    expect(result.failure!.reason).not.toMatch(/already exists/);
  });

  it('fails a create of an object already there even when expect wants an error: the read before never feeds expect', async () => {
    const result = await runOne(`  steps:
  - try:
    - create:
        resource:
          apiVersion: v1
          kind: ConfigMap
          metadata:
            name: there-before
  - try:
    - create:
        resource:
          apiVersion: v1
          kind: ConfigMap
          metadata:
            name: there-before
        expect:
        - check:
            ($error != null): true
`);
    expect(result.outcome).toBe('fail');
    expect(result.failure).toMatchObject({ stepIndex: 1, operation: { type: 'create' } });
    expect(result.failure!.reason).toMatch(/the resource already exists in the cluster/);
  });

  it('passes a create refused by a webhook when expect wants an error, and fails it when expect wants none', async () => {
    const refused = `apiVersion: v1
          kind: ConfigMap
          metadata:
            name: refused
            labels:
              refuse: "yes"`;
    const wanted = await runOne(`  steps:
  - try:
    - create:
        resource:
          ${refused}
        expect:
        - check:
            ($error != null): true
            (contains($error, 'refused by the test webhook')): true
    - error:
        resource:
          apiVersion: v1
          kind: ConfigMap
          metadata:
            name: refused
`);
    expect(wanted.failures).toEqual([]);
    const unwanted = await runOne(`  steps:
  - try:
    - create:
        resource:
          ${refused}
`);
    expect(unwanted.outcome).toBe('fail');
    expect(unwanted.failure!.reason).toContain('refused by the test webhook');
  });
});

/** The real client, whose writes (of the types named) of ConfigMaps fail with the scripted errors first. */
function failingWrites(errors: Error[], calls: string[], types = ['create', 'update', 'patch']): ClusterClient {
  const real = cluster.client;
  const scripted = async <T>(what: string, object: JsonObject, write: () => Promise<T>): Promise<T> => {
    if (object['kind'] !== 'ConfigMap' || !types.includes(what)) return write();
    calls.push(what);
    const error = errors.shift();
    if (error) throw error;
    return write();
  };
  return {
    isNamespaced: (apiVersion, kind) => real.isNamespaced(apiVersion, kind),
    get: (ref) => real.get(ref),
    list: (ref, options) => real.list(ref, options),
    delete: (ref, options) => real.delete(ref, options),
    create: (object) => scripted('create', object, () => real.create(object)),
    update: (object) => scripted('update', object, () => real.update(object)),
    patch: (ref, patch) => scripted('patch', { kind: ref.kind }, () => real.patch(ref, patch)),
  };
}

describe('writes retry only on a transient answer', () => {
  const spec = (type: string, name: string) => `  steps:
  - try:
    - apply:
        resource:
          apiVersion: v1
          kind: ConfigMap
          metadata:
            name: ${name}
          data:
            a: "1"
    - ${type}:
        resource:
          apiVersion: v1
          kind: ConfigMap
          metadata:
            name: ${name}
          data:
            a: "2"
`;

  it('retries update and patch after a conflict, throttling or unavailability, then checks the answer', async () => {
    for (const [type, error] of [
      ['update', new TransientClusterError('Operation cannot be fulfilled: the object has been modified', 409)],
      ['patch', new TransientClusterError('the server is currently unable to handle the request', 503)],
      ['update', new TransientClusterError('Too many requests', 429)],
    ] as const) {
      const calls: string[] = [];
      const result = await runOne(spec(type, `retried-${type}-${String(error.code)}`), {
        clusterClient: failingWrites([error], calls, [type]),
      });
      expect(result.failures, `${type} after ${String(error.code)}`).toEqual([]);
      expect(calls).toEqual([type, type]);
    }
  });

  it('does not retry a write refused for good, even when a second try would succeed', async () => {
    const calls: string[] = [];
    const result = await runOne(spec('patch', 'refused-once'), {
      clusterClient: failingWrites([new Error('admission webhook "x" denied the request: no')], calls, ['patch']),
    });
    expect(result.outcome).toBe('fail');
    expect(result.failure!.reason).toContain('denied the request');
    expect(calls).toEqual(['patch']);
  });

  it('checks the transient answer standing at the timeout', async () => {
    const calls: string[] = [];
    const busy = () => new TransientClusterError('the server is currently unable to handle the request', 503);
    const client = failingWrites(Array.from({ length: 1000 }, busy), calls);
    const result = await runOne(
      `  steps:
  - try:
    - create:
        resource:
          apiVersion: v1
          kind: ConfigMap
          metadata:
            name: always-busy
        expect:
        - check:
            ($error): the server is currently unable to handle the request
`,
      { clusterClient: client },
    );
    expect(result.failures).toEqual([]);
    expect(calls.length).toBeGreaterThan(1);
  });
});
