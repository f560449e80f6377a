import { describe, expect, it } from 'vitest';
import { cloneJson, type JsonObject, type JsonValue } from '@edict/foundation';
import { applyStrategicMergePatch } from './strategic-merge';

function pod(spec: JsonObject, metadata: JsonObject = { name: 'p' }): JsonObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata, spec };
}

/** Applies the patch, checks the input was left alone, returns the patched resource. */
function patched(resource: JsonObject, patch: JsonValue): JsonObject {
  const before = cloneJson(resource);
  const outcome = applyStrategicMergePatch(resource, patch);
  expect(resource).toEqual(before);
  if (outcome.status !== 'pass') throw new Error(`expected pass, got ${JSON.stringify(outcome)}`);
  return outcome.resource;
}

function names(list: JsonValue | undefined): string[] {
  return (list as JsonObject[]).map((item) => item.name as string);
}

describe('applyStrategicMergePatch: maps and scalars', () => {
  it('merges maps recursively and copies only the changed branches', () => {
    const resource = pod({ containers: [{ name: 'a', image: 'x' }] }, { name: 'p', labels: { app: 'web' } });
    const out = patched(resource, { metadata: { labels: { team: 'blue' } } });
    expect(out.metadata).toEqual({ name: 'p', labels: { app: 'web', team: 'blue' } });
    expect(out.spec).toBe(resource.spec);
  });

  it('deletes a key whose patch value is null, and ignores null for absent keys', () => {
    const out = patched(pod({ hostNetwork: true, dnsPolicy: 'Default' }), {
      spec: { hostNetwork: null, hostPID: null },
    });
    expect(out.spec).toEqual({ dnsPolicy: 'Default' });
  });

  it('skips with "no patches applied" when nothing changes', () => {
    const resource = pod({ hostNetwork: true }, { name: 'p', labels: { a: 'b' } });
    expect(applyStrategicMergePatch(resource, { metadata: { labels: { a: 'b' } } })).toEqual({
      status: 'skip',
      message: 'no patches applied',
    });
  });

  it('drops null fields anywhere in the resource, as the kyaml walk does', () => {
    const resource = pod({ hostNetwork: true }, { name: 'p', creationTimestamp: null });
    const out = patched(resource, { metadata: { labels: { a: 'b' } } });
    expect(out.metadata).toEqual({ name: 'p', labels: { a: 'b' } });
  });

  it('fails on a patch whose shape contradicts the resource', () => {
    const outcome = applyStrategicMergePatch(pod({ containers: [{ name: 'a' }] }), {
      spec: { containers: { name: 'a' } },
    });
    expect(outcome.status).toBe('error');
    expect(outcome.status === 'error' && outcome.message).toMatch(
      /^failed to patch resource: wrong node kind: expected SequenceNode but got MappingNode/,
    );
  });

  it('rejects a patch that is not a map', () => {
    expect(applyStrategicMergePatch(pod({}), ['x'])).toEqual({
      status: 'error',
      message:
        'failed to patch resource: failed to preProcess rule: wrong node kind: expected MappingNode but got SequenceNode',
    });
  });
});

describe('applyStrategicMergePatch: lists', () => {
  it('merges containers by name and puts the named ones first (kyaml prepends)', () => {
    const resource = pod({
      containers: [
        { name: 'a', image: 'a:1' },
        { name: 'b', image: 'b:1' },
      ],
    });
    const out = patched(resource, {
      spec: {
        containers: [
          { name: 'b', image: 'b:2' },
          { name: 'c', image: 'c:1' },
        ],
      },
    });
    expect(out.spec).toEqual({
      containers: [
        { name: 'b', image: 'b:2' },
        { name: 'c', image: 'c:1' },
        { name: 'a', image: 'a:1' },
      ],
    });
    expect((out.spec as JsonObject).containers).not.toBe((resource.spec as JsonObject).containers);
  });

  it('merges env by name, ports by containerPort, volumeMounts by mountPath, volumes by name', () => {
    const resource = pod({
      containers: [
        {
          name: 'app',
          env: [{ name: 'A', value: '1' }],
          ports: [{ containerPort: 80, name: 'http' }],
          volumeMounts: [{ mountPath: '/data', name: 'data' }],
        },
      ],
      volumes: [{ name: 'data', emptyDir: {} }],
    });
    const out = patched(resource, {
      spec: {
        containers: [
          {
            name: 'app',
            env: [
              { name: 'A', value: '2' },
              { name: 'B', value: '3' },
            ],
            ports: [{ containerPort: 80, protocol: 'TCP' }],
            volumeMounts: [{ mountPath: '/data', readOnly: true }],
          },
        ],
        volumes: [{ name: 'cache', emptyDir: { medium: 'Memory' } }],
      },
    });
    const container = ((out.spec as JsonObject).containers as JsonObject[])[0]!;
    expect(container.env).toEqual([
      { name: 'A', value: '2' },
      { name: 'B', value: '3' },
    ]);
    expect(container.ports).toEqual([{ containerPort: 80, name: 'http', protocol: 'TCP' }]);
    expect(container.volumeMounts).toEqual([{ mountPath: '/data', name: 'data', readOnly: true }]);
    expect(names((out.spec as JsonObject).volumes)).toEqual(['cache', 'data']);
  });

  it('follows pod templates of workload kinds', () => {
    const deployment: JsonObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: { template: { spec: { containers: [{ name: 'a' }] } } },
    };
    const out = patched(deployment, { spec: { template: { spec: { containers: [{ name: 'sidecar' }] } } } });
    expect(out).toMatchObject({ spec: { template: { spec: { containers: [{ name: 'sidecar' }, { name: 'a' }] } } } });

    const cronJob: JsonObject = {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'c' },
      spec: {
        jobTemplate: {
          spec: { template: { spec: { containers: [{ name: 'a', env: [{ name: 'X', value: '1' }] }] } } },
        },
      },
    };
    const cronOut = patched(cronJob, {
      spec: {
        jobTemplate: {
          spec: { template: { spec: { containers: [{ name: 'a', env: [{ name: 'Y', value: '2' }] }] } } },
        },
      },
    });
    expect(cronOut).toMatchObject({
      spec: {
        jobTemplate: {
          spec: {
            template: {
              spec: {
                containers: [
                  {
                    name: 'a',
                    env: [
                      { name: 'Y', value: '2' },
                      { name: 'X', value: '1' },
                    ],
                  },
                ],
              },
            },
          },
        },
      },
    });
  });

  it('replaces lists without a patch strategy', () => {
    const resource = pod({
      tolerations: [{ key: 'a', operator: 'Exists' }],
      containers: [{ name: 'a', args: ['x', 'y'] }],
    });
    const out = patched(resource, {
      spec: { tolerations: [{ key: 'b', operator: 'Exists' }], containers: [{ name: 'a', args: ['z'] }] },
    });
    expect(out.spec).toEqual({
      tolerations: [{ key: 'b', operator: 'Exists' }],
      containers: [{ name: 'a', args: ['z'] }],
    });
  });

  it('merges finalizers as a set, patch members first', () => {
    const out = patched(pod({}, { name: 'p', finalizers: ['a', 'b'] }), { metadata: { finalizers: ['c', 'a'] } });
    expect((out.metadata as JsonObject).finalizers).toEqual(['c', 'a', 'b']);
  });

  it('replaces every list of a kind it has no schema for (CRDs)', () => {
    const widget: JsonObject = {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w', finalizers: ['keep'] },
      spec: {
        containers: [
          { name: 'a', image: 'x' },
          { name: 'b', image: 'y' },
        ],
      },
    };
    const out = patched(widget, {
      metadata: { finalizers: ['new'] },
      spec: { containers: [{ name: 'a', image: 'z' }] },
    });
    expect(out).toMatchObject({ metadata: { finalizers: ['new'] }, spec: { containers: [{ name: 'a', image: 'z' }] } });
  });

  it('drops repeated keys from merged lists: the last repeat wins', () => {
    const resource = pod({
      containers: [
        {
          name: 'a',
          env: [
            { name: 'X', value: '1' },
            { name: 'X', value: '2' },
          ],
        },
      ],
    });
    const out = patched(resource, { metadata: { labels: { l: 'v' } } });
    expect(((out.spec as JsonObject).containers as JsonObject[])[0]!.env).toEqual([{ name: 'X', value: '2' }]);
  });
});

describe('applyStrategicMergePatch: branches met again', () => {
  // A container whose env repeats a key: a Pod's schema merges env by name (the last repeat wins),
  // a kind without a schema keeps the list as it is.
  const container = (): JsonObject => ({
    name: 'a',
    env: [
      { name: 'X', value: '1' },
      { name: 'X', value: '2' },
    ],
  });
  const widget = (shared: JsonObject): JsonObject => ({
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name: 'w' },
    spec: { template: shared },
  });
  const label = { metadata: { labels: { l: 'v' } } };
  const envOf = (resource: JsonObject) => ((resource.spec as JsonObject).containers as JsonObject[])[0]!.env;

  it('walks a branch again under another schema', () => {
    const shared = container();
    const widgetEnv = (resource: JsonObject) => ((resource.spec as JsonObject).template as JsonObject).env;
    expect(widgetEnv(patched(widget(shared), label))).toHaveLength(2);
    expect(envOf(patched(pod({ containers: [shared] }), label))).toEqual([{ name: 'X', value: '2' }]);
    expect(widgetEnv(patched(widget(shared), label))).toHaveLength(2);
  });

  it('gives the same result for a resource patched again as for a fresh copy', () => {
    const resource = pod({ containers: [container()], volumes: [{ name: 'v', emptyDir: {} }] });
    const fresh = cloneJson(resource);
    const first = patched(resource, label);
    const again = patched(first, { spec: { containers: [{ name: 'a', image: 'x' }] } });
    expect(again).toEqual(patched(patched(fresh, label), { spec: { containers: [{ name: 'a', image: 'x' }] } }));
    expect(patched(resource, label)).toEqual(first);
  });
});

describe('applyStrategicMergePatch: $patch directives', () => {
  it('deletes a list element', () => {
    const out = patched(pod({ containers: [{ name: 'a' }, { name: 'b' }] }), {
      spec: { containers: [{ name: 'a', $patch: 'delete' }] },
    });
    expect((out.spec as JsonObject).containers).toEqual([{ name: 'b' }]);
  });

  it('replaces or deletes a map, merges explicitly', () => {
    const resource = pod({
      securityContext: { runAsUser: 1, runAsGroup: 2 },
      dnsConfig: { nameservers: ['1.1.1.1'] },
      nodeSelector: { a: 'b' },
    });
    const out = patched(resource, {
      spec: {
        securityContext: { $patch: 'replace', runAsNonRoot: true },
        dnsConfig: { $patch: 'delete' },
        nodeSelector: { $patch: 'merge', c: 'd' },
      },
    });
    expect(out.spec).toEqual({ securityContext: { runAsNonRoot: true }, nodeSelector: { a: 'b', c: 'd' } });
  });

  it('strips directives from maps the patch adds', () => {
    const out = patched(pod({}), {
      spec: { securityContext: { $patch: 'replace', runAsUser: 1, seLinuxOptions: null } },
    });
    expect(out.spec).toEqual({ securityContext: { runAsUser: 1 } });
  });

  it('rejects an unknown directive on an existing map', () => {
    expect(
      applyStrategicMergePatch(pod({ nodeSelector: { a: 'b' } }), { spec: { nodeSelector: { $patch: 'keep' } } }),
    ).toEqual({
      status: 'error',
      message: "failed to patch resource: unknown patch strategy 'keep'",
    });
  });

  it('treats $retainKeys, $setElementOrder and $deleteFromPrimitiveList as ordinary keys, like kyaml', () => {
    const out = patched(pod({ containers: [{ name: 'a' }] }, { name: 'p', finalizers: ['f'] }), {
      metadata: { '$deleteFromPrimitiveList/finalizers': ['f'] },
      spec: { '$setElementOrder/containers': [{ name: 'a' }] },
    });
    expect(out.metadata).toEqual({ name: 'p', finalizers: ['f'], '$deleteFromPrimitiveList/finalizers': ['f'] });
    expect((out.spec as JsonObject)['$setElementOrder/containers']).toEqual([{ name: 'a' }]);
  });
});

describe('applyStrategicMergePatch: anchors', () => {
  const sidecar = {
    spec: {
      template: {
        metadata: { annotations: { '(inject)': 'true' } },
        spec: { containers: [{ name: 'agent', image: 'agent:1' }] },
      },
    },
  };
  function deployment(inject: string): JsonObject {
    return {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: { template: { metadata: { annotations: { inject } }, spec: { containers: [{ name: 'app' }] } } },
    };
  }

  it('applies a map condition when it holds and removes the anchor from the output', () => {
    const out = patched(deployment('true'), sidecar);
    expect(out.spec).toEqual({
      template: {
        metadata: { annotations: { inject: 'true' } },
        spec: { containers: [{ name: 'agent', image: 'agent:1' }, { name: 'app' }] },
      },
    });
  });

  it('skips the whole patch when a map condition fails', () => {
    expect(applyStrategicMergePatch(deployment('false'), sidecar)).toEqual({
      status: 'skip',
      message: 'no patches applied',
    });
  });

  it('patches only the list elements whose conditions hold, using wildcards', () => {
    const resource = pod({
      containers: [
        { name: 'a', image: 'nginx:latest' },
        { name: 'b', image: 'nginx:1.2' },
      ],
    });
    const out = patched(resource, { spec: { containers: [{ '(image)': '*:latest', imagePullPolicy: 'Always' }] } });
    expect((out.spec as JsonObject).containers).toEqual([
      { name: 'a', image: 'nginx:latest', imagePullPolicy: 'Always' },
      { name: 'b', image: 'nginx:1.2' },
    ]);
  });

  it('compares scalar conditions by their text', () => {
    const resource = pod({ hostNetwork: true, containers: [{ name: 'a' }] });
    const out = patched(resource, { spec: { '(hostNetwork)': 'true', dnsPolicy: 'ClusterFirstWithHostNet' } });
    expect((out.spec as JsonObject).dnsPolicy).toBe('ClusterFirstWithHostNet');
  });

  it('fails a condition on a missing key', () => {
    const resource = pod({ containers: [{ name: 'a' }] });
    expect(applyStrategicMergePatch(resource, { spec: { '(hostNetwork)': true, dnsPolicy: 'x' } }).status).toBe('skip');
  });

  it('adds a field only when it is absent', () => {
    const resource = pod({ containers: [{ name: 'a' }] }, { name: 'p', annotations: { keep: 'me' } });
    const out = patched(resource, { metadata: { annotations: { '+(keep)': 'other', '+(added)': 'yes' } } });
    expect((out.metadata as JsonObject).annotations).toEqual({ keep: 'me', added: 'yes' });
  });

  it('adds inside a conditioned list element without checking the condition value', () => {
    const resource = pod({
      volumes: [
        { name: 'v', emptyDir: {} },
        { name: 'w', hostPath: { path: '/x' } },
      ],
    });
    const out = patched(resource, { spec: { volumes: [{ '(emptyDir)': { '+(sizeLimit)': '20Mi' } }] } });
    expect((out.spec as JsonObject).volumes).toEqual([
      { name: 'v', emptyDir: { sizeLimit: '20Mi' } },
      { name: 'w', hostPath: { path: '/x' } },
    ]);
  });

  it('applies the rest of the patch when a global anchor holds somewhere in a list', () => {
    const patch = {
      metadata: { annotations: { '+(safe-to-evict)': 'true' } },
      spec: { volumes: [{ '<(emptyDir)': {} }] },
    };
    const withEmptyDir = pod({
      volumes: [
        { name: 'h', hostPath: { path: '/' } },
        { name: 'e', emptyDir: {} },
      ],
    });
    const out = patched(withEmptyDir, patch);
    expect(out.metadata).toEqual({ name: 'p', annotations: { 'safe-to-evict': 'true' } });
    expect((out.spec as JsonObject).volumes).toBe((withEmptyDir.spec as JsonObject).volumes);

    const without = pod({ volumes: [{ name: 'h', hostPath: { path: '/' } }] });
    expect(applyStrategicMergePatch(without, patch)).toEqual({ status: 'skip', message: 'no patches applied' });
    expect(applyStrategicMergePatch(pod({ containers: [] }), patch).status).toBe('skip');
  });

  it('skips the whole patch when a global anchor on a map fails', () => {
    const resource = pod({ containers: [{ name: 'a' }] }, { name: 'p', labels: { tier: 'web' } });
    const patch = { metadata: { labels: { '<(tier)': 'db' } }, spec: { priorityClassName: 'high' } };
    expect(applyStrategicMergePatch(resource, patch).status).toBe('skip');
  });

  it('leaves equality, existence and negation anchors in the patch as plain keys', () => {
    const out = patched(pod({}, { name: 'p', labels: { a: 'b' } }), { metadata: { labels: { '=(a)': 'c' } } });
    expect((out.metadata as JsonObject).labels).toEqual({ a: 'b', '=(a)': 'c' });
  });

  it('keeps only the last of two conditioned elements of one list, as Kyverno does', () => {
    // Kyverno removes the anchored elements by their original positions after earlier removals
    // shifted the list, which throws away the first element's named copy.
    const resource = pod({
      containers: [
        { name: 'a', image: 'a:1' },
        { name: 'b', image: 'b:1' },
      ],
    });
    const out = patched(resource, {
      spec: {
        containers: [
          { '(name)': 'a', imagePullPolicy: 'Always' },
          { '(name)': 'b', imagePullPolicy: 'Never' },
        ],
      },
    });
    expect((out.spec as JsonObject).containers).toEqual([
      { name: 'b', image: 'b:1', imagePullPolicy: 'Never' },
      { name: 'a', image: 'a:1' },
    ]);
  });

  it('drops empty maps from the patch, as Kyverno does', () => {
    const out = patched(pod({}), { spec: { volumes: [{ name: 'cache', emptyDir: {} }] } });
    expect((out.spec as JsonObject).volumes).toEqual([{ name: 'cache' }]);
  });

  it('reports a list pattern against a map as a preprocessing error', () => {
    expect(
      applyStrategicMergePatch(pod({ containers: { name: 'a' } }), {
        spec: { containers: [{ '(name)': 'a', image: 'x' }] },
      }),
    ).toEqual({
      status: 'error',
      message:
        'failed to patch resource: failed to preProcess rule: wrong node kind: expected SequenceNode but got MappingNode',
    });
  });
});
