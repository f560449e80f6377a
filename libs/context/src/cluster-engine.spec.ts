import { describe, expect, it } from 'vitest';
import { Engine, type ImageRegistryCredentials, type Policy } from '@edict/engine';
import { type JsonObject, type KubeObject } from '@edict/foundation';
import { KubeHttpClient, KubeResources } from '@edict/kube';
import { kubeConfigForUrl } from '@edict/kube/testing';
import type { ApiCallers, GlobalContextReader } from './cluster-context-loaders';
import { ClusterEngine } from './cluster-engine';
import { signedImageRegistry } from '@edict/engine/testing';
import type { ImageDataSource } from './image-data-source';

/** Image data by reference, recording the lookups and their credentials. */
function images(data: Record<string, JsonObject>): ImageDataSource & { asked: [string, unknown][] } {
  return {
    asked: [],
    async imageData(reference: string, credentials?: ImageRegistryCredentials) {
      this.asked.push([reference, credentials]);
      const found = data[reference];
      if (!found) throw new Error(`no image ${reference}`);
      return found;
    },
  };
}

/** GlobalContextEntries' data by reference, as the controller's store serves it. */
function globalContext(entries: Record<string, JsonObject | string[]>): GlobalContextReader {
  return {
    read(reference) {
      const data = entries[reference];
      if (data === undefined) throw new Error(`global context entry "${reference}" does not exist`);
      return data;
    },
  };
}

const noApiCalls: ApiCallers = {
  kube: () => Promise.reject(new Error('no apiCalls in this spec')),
  service: () => Promise.reject(new Error('no apiCalls in this spec')),
};

/** Nothing listens there: the rules of this spec read no ConfigMap or Namespace. */
const unreachableCluster = new KubeResources(new KubeHttpClient(kubeConfigForUrl('http://127.0.0.1:9')));

const imagePolicy = {
  apiVersion: 'kyverno.io/v1',
  kind: 'ClusterPolicy',
  metadata: { name: 'trusted-images' },
  spec: {
    validationFailureAction: 'Audit',
    background: true,
    rules: [
      {
        name: 'trusted-non-root',
        match: { any: [{ resources: { kinds: ['Pod'] } }] },
        context: [
          { name: 'registry', variable: { jmesPath: "split(request.object.spec.containers[0].image, '/')[0]" } },
          { name: 'trusted', globalReference: { name: 'registries.trusted' } },
          {
            name: 'user',
            imageRegistry: {
              reference: '{{ request.object.spec.containers[0].image }}',
              jmesPath: 'configData.config.User',
            },
          },
        ],
        validate: {
          message: 'image from {{ registry }} runs as {{ user }}',
          deny: {
            conditions: {
              any: [
                { key: '{{ user }}', operator: 'Equals', value: 'root' },
                { key: '{{ registry }}', operator: 'AnyNotIn', value: '{{ trusted }}' },
              ],
            },
          },
        },
      },
    ],
  },
} as unknown as Policy;

function pod(image: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'shop' },
    spec: { containers: [{ name: 'app', image }] },
  };
}

describe('ClusterEngine: the context entries background rules and scans run', () => {
  it('loads globalReference from the controller store and imageRegistry from its registry access, as admission does', async () => {
    const registry = images({
      'ghcr.io/team/app:1': { configData: { config: { User: 'root' } } },
      'ghcr.io/team/app:2': { configData: { config: { User: 'app' } } },
      'docker.io/team/app:2': { configData: { config: { User: 'app' } } },
    });
    const engine = new ClusterEngine(unreachableCluster, {
      callers: noApiCalls,
      globalContext: globalContext({ 'registries.trusted': ['ghcr.io', 'quay.io'] }),
      images: registry,
    });
    const compiled = new Engine().compile(imagePolicy);

    const run = async (image: string) =>
      (await engine.validate(compiled, { resource: pod(image), operation: 'CREATE' })).rules.map(
        ({ status, message }) => ({ status, message }),
      );

    expect(await run('ghcr.io/team/app:1')).toEqual([{ status: 'fail', message: 'image from ghcr.io runs as root' }]);
    expect(await run('ghcr.io/team/app:2')).toEqual([{ status: 'pass', message: expect.any(String) }]);
    // Not in the entry's list: the globalReference data decides.
    expect(await run('docker.io/team/app:2')).toEqual([
      { status: 'fail', message: 'image from docker.io runs as app' },
    ]);
    expect(registry.asked).toEqual([
      ['ghcr.io/team/app:1', undefined],
      ['ghcr.io/team/app:2', undefined],
      ['docker.io/team/app:2', undefined],
    ]);
  });

  it('ends a rule in error naming what is missing when the store or the registry has no data', async () => {
    const compiled = new Engine().compile(imagePolicy);
    const run = async (sources: { globalContext: GlobalContextReader; images: ImageDataSource }) =>
      (
        await new ClusterEngine(unreachableCluster, { callers: noApiCalls, ...sources }).validate(compiled, {
          resource: pod('ghcr.io/team/app:2'),
          operation: 'CREATE',
        })
      ).rules.map(({ status, message }) => ({ status, message }));

    const app = { 'ghcr.io/team/app:2': { configData: { config: { User: 'app' } } } };
    expect(await run({ globalContext: globalContext({}), images: images(app) })).toEqual([
      { status: 'error', message: expect.stringContaining('global context entry "registries.trusted" does not exist') },
    ]);
    expect(
      await run({ globalContext: globalContext({ 'registries.trusted': ['ghcr.io'] }), images: images({}) }),
    ).toEqual([{ status: 'error', message: expect.stringContaining('no image ghcr.io/team/app:2') }]);
  });
});

describe('ClusterEngine.scan (background scans of verifyImages policies)', () => {
  it('verifies images again without trusting the recorded annotation, reporting each image', async () => {
    const registry = await signedImageRegistry();
    const source: ImageDataSource = {
      imageData: () => Promise.reject(new Error('no image data in this spec')),
      oci: () => registry.oci,
    };
    const engine = new ClusterEngine(unreachableCluster, {
      callers: noApiCalls,
      globalContext: globalContext({}),
      images: source,
    });
    const policy: Policy = {
      apiVersion: 'kyverno.io/v1',
      kind: 'ClusterPolicy',
      metadata: { name: 'signed-images' },
      spec: {
        background: true,
        rules: [
          {
            name: 'notary',
            match: { any: [{ resources: { kinds: ['Pod'] } }] },
            verifyImages: [
              {
                type: 'Notary',
                failureAction: 'Audit',
                mutateDigest: false,
                verifyDigest: false,
                required: false,
                imageReferences: ['registry.local/*'],
                attestors: [{ entries: [{ certificates: { cert: registry.root.certPem } }] }],
              },
            ],
          },
        ],
      },
    };
    const compiled = new Engine().compile(policy);
    const pod = (image: string): KubeObject => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'p',
        namespace: 'shop',
        // A forged record must not count: the scan verifies for itself.
        annotations: { 'kyverno.io/verify-images': JSON.stringify({ [image]: 'pass' }) },
      },
      spec: { containers: [{ name: 'app', image }] },
    });
    const signed = await engine.scan(compiled, { operation: 'CREATE', resource: pod(registry.signed.image) });
    expect(signed.rules).toMatchObject([{ name: 'notary', type: 'ImageVerify', status: 'pass' }]);
    const unsigned = await engine.scan(compiled, { operation: 'CREATE', resource: pod(registry.unsigned.image) });
    expect(unsigned.rules).toMatchObject([
      {
        name: 'notary',
        status: 'fail',
        message: expect.stringContaining(`failed to verify image ${registry.unsigned.image}`),
      },
    ]);
  });
});
