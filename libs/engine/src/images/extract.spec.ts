import { describe, expect, it } from 'vitest';
import type { JsonObject, KubeObject } from '@edict/foundation';
import { extractImages, ImageExtractionError, imagesAsJson } from './extract';

const podSpec: JsonObject = {
  imagePullSecrets: [{ name: 'regcred' }],
  initContainers: [{ name: 'init', image: 'busybox:1.36' }],
  containers: [
    { name: 'web', image: 'nginx' },
    { name: 'sidecar', image: 'ghcr.io/org/proxy@sha256:' + 'ab'.repeat(32) },
  ],
  ephemeralContainers: [{ name: 'debug', image: 'localhost:5000/tools:dev' }],
};

const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: podSpec };

describe('extractImages', () => {
  it('writes each image info in the key order Kyverno prints in `{{ images }}`', () => {
    const images = extractImages(pod);
    expect(Object.keys(images['initContainers']!['init']!)).toEqual([
      'registry',
      'name',
      'path',
      'tag',
      'reference',
      'referenceWithTag',
      'jsonPointer',
      'imagePullSecrets',
    ]);
    expect(Object.keys(images['containers']!['sidecar']!)).toEqual([
      'registry',
      'name',
      'path',
      'digest',
      'reference',
      'referenceWithTag',
      'jsonPointer',
      'imagePullSecrets',
    ]);
  });

  it('extracts every container group of a Pod, keyed by container name', () => {
    expect(extractImages(pod)).toEqual({
      initContainers: {
        init: {
          registry: 'docker.io',
          name: 'busybox',
          path: 'busybox',
          tag: '1.36',
          reference: 'docker.io/busybox:1.36',
          referenceWithTag: 'docker.io/busybox:1.36',
          jsonPointer: '/spec/initContainers/0/image',
          imagePullSecrets: ['regcred'],
        },
      },
      containers: {
        web: {
          registry: 'docker.io',
          name: 'nginx',
          path: 'nginx',
          tag: 'latest',
          reference: 'docker.io/nginx:latest',
          referenceWithTag: 'docker.io/nginx:latest',
          jsonPointer: '/spec/containers/0/image',
          imagePullSecrets: ['regcred'],
        },
        sidecar: {
          registry: 'ghcr.io',
          name: 'proxy',
          path: 'org/proxy',
          digest: 'sha256:' + 'ab'.repeat(32),
          reference: 'ghcr.io/org/proxy@sha256:' + 'ab'.repeat(32),
          referenceWithTag: 'ghcr.io/org/proxy:',
          jsonPointer: '/spec/containers/1/image',
          imagePullSecrets: ['regcred'],
        },
      },
      ephemeralContainers: {
        debug: {
          registry: 'localhost:5000',
          name: 'tools',
          path: 'tools',
          tag: 'dev',
          reference: 'localhost:5000/tools:dev',
          referenceWithTag: 'localhost:5000/tools:dev',
          jsonPointer: '/spec/ephemeralContainers/0/image',
          imagePullSecrets: ['regcred'],
        },
      },
    });
  });

  it('leaves out groups without containers and gives an empty secret list', () => {
    const simple: KubeObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'c', image: 'redis:7' }] },
    };
    const images = extractImages(simple);
    expect(Object.keys(images)).toEqual(['containers']);
    expect(images.containers.c.imagePullSecrets).toEqual([]);
    expect(images.containers.c.jsonPointer).toBe('/spec/containers/0/image');
  });

  it.each(['Deployment', 'DaemonSet', 'StatefulSet', 'ReplicaSet', 'ReplicationController', 'Job'])(
    'reads %s pod templates',
    (kind) => {
      const resource: KubeObject = {
        apiVersion: 'apps/v1',
        kind,
        metadata: { name: 'x' },
        spec: { template: { spec: podSpec } },
      };
      const images = extractImages(resource);
      expect(images.containers.web.jsonPointer).toBe('/spec/template/spec/containers/0/image');
      expect(images.initContainers.init.jsonPointer).toBe('/spec/template/spec/initContainers/0/image');
      expect(images.containers.sidecar.path).toBe('org/proxy');
    },
  );

  it('reads CronJob job templates', () => {
    const cronJob: KubeObject = {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'nightly' },
      spec: {
        schedule: '@daily',
        jobTemplate: { spec: { template: { spec: { containers: [{ name: 'job', image: 'team/backup:2' }] } } } },
      },
    };
    expect(extractImages(cronJob)).toEqual({
      containers: {
        job: {
          registry: 'docker.io',
          name: 'backup',
          path: 'team/backup',
          tag: '2',
          reference: 'docker.io/team/backup:2',
          referenceWithTag: 'docker.io/team/backup:2',
          jsonPointer: '/spec/jobTemplate/spec/template/spec/containers/0/image',
          imagePullSecrets: [],
        },
      },
    });
  });

  it('returns nothing for kinds without pods and for Pods without a spec', () => {
    expect(
      extractImages({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { image: 'nginx' } }),
    ).toEqual({});
    expect(extractImages({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } })).toEqual({});
    expect(extractImages({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: {} })).toEqual({});
  });

  it('skips containers without an image', () => {
    const resource: KubeObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'a' }, { name: 'b', image: '  ' }, { name: 'c', image: 'nginx' }] },
    };
    expect(Object.keys(extractImages(resource).containers)).toEqual(['c']);
  });

  it('keeps the last of duplicate container names', () => {
    const resource: KubeObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: {
        containers: [
          { name: 'a', image: 'one' },
          { name: 'a', image: 'two' },
        ],
      },
    };
    expect(extractImages(resource).containers.a.path).toBe('two');
  });

  it.each<[string, JsonObject, string]>([
    ['a container without a name', { containers: [{ image: 'nginx' }] }, 'invalid key'],
    ['a non-object container', { containers: ['nginx'] }, 'invalid image config'],
    ['containers that are not a list', { containers: 'nginx' }, 'invalid type'],
    [
      'an invalid image',
      { containers: [{ name: 'a', image: 'Bad Image' }] },
      "invalid image 'Bad Image' (bad image: docker.io/Bad Image, defaultRegistry: docker.io, enableDefaultRegistryMutation: true: invalid reference format)",
    ],
  ])('fails on %s', (_title, spec, message) => {
    const resource: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec };
    expect(() => extractImages(resource)).toThrow(ImageExtractionError);
    expect(() => extractImages(resource)).toThrow(message);
  });

  it('honours the default registry options', () => {
    expect(extractImages(pod, { defaultRegistry: 'mirror.local' }).containers.web.reference).toBe(
      'mirror.local/nginx:latest',
    );
    const noMutation = extractImages(pod, { defaultRegistry: 'mirror.local', enableDefaultRegistryMutation: false });
    expect(noMutation.containers.web).not.toHaveProperty('registry');
    expect(noMutation.containers.web.reference).toBe('nginx:latest');
  });

  it('uses custom extractors for a kind', () => {
    const task: KubeObject = {
      apiVersion: 'tekton.dev/v1',
      kind: 'Task',
      metadata: { name: 't' },
      spec: {
        steps: [
          { name: 'build', image: 'golang:1.22' },
          { name: 'push', image: 'gcr.io/kaniko:latest' },
        ],
      },
    };
    const images = extractImages(task, {
      extractors: { Task: [{ name: 'steps', path: '/spec/steps/*/image', key: 'name' }] },
    });
    expect(Object.keys(images.steps)).toEqual(['build', 'push']);
    expect(images.steps.push).toMatchObject({ registry: 'gcr.io', path: 'kaniko', jsonPointer: '/spec/steps/1/image' });

    const byPointer = extractImages(task, { extractors: { Task: [{ path: '/spec/steps/*', value: 'image' }] } });
    expect(Object.keys(byPointer.custom)).toEqual(['/spec/steps/0/image', '/spec/steps/1/image']);

    const viaJmesPath = extractImages(task, {
      extractors: { Task: [{ path: '/spec/steps/*/image', key: 'name', jmesPath: "trim_prefix(@, 'x')" }] },
      applyJmesPath: (_expression, value) => `${value}-rc`,
    });
    expect(viaJmesPath.custom.build.tag).toBe('1.22-rc');
    expect(() => extractImages(task, { extractors: { Task: [] } })).toThrow('no extractors found for Task');
    expect(() =>
      extractImages(task, { extractors: { Task: [{ path: '/spec/steps/*/image', jmesPath: 'x' }] } }),
    ).toThrow(/no JMESPath evaluator/);
  });

  it('types the result as JSON for the evaluation context', () => {
    const json = imagesAsJson(extractImages(pod));
    expect(JSON.parse(JSON.stringify(json))).toEqual(json);
  });
});
