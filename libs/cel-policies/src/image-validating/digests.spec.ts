import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@edict/foundation';
import { InMemoryOci, pushImage } from '@edict/image-verify/testing';
import { imageValidatingPolicy, inputFor, matching, pod } from '../testing';
import { compileCelPolicyException } from '../exceptions/compile-exception';
import { compileImageValidatingPolicy } from './compile';
import { imageVerificationOutcomePatches, mutateImageDigests } from './digests';
import type { ImageValidatingPolicySpec } from './types';

const spec: ImageValidatingPolicySpec = {
  matchConstraints: matching('', 'v1', 'pods'),
  matchImageReferences: [{ glob: 'registry.example/*' }],
  attestors: [{ name: 'signer', notary: { certs: { value: 'PEM' } } }],
  validations: [{ expression: 'true' }],
};

async function registry() {
  const oci = new InMemoryOci();
  const app = await pushImage(oci, 'registry.example/app', 'v1', 'app');
  return { oci, app, ports: { oci: () => oci } };
}

describe('mutateImageDigests', () => {
  it('pins every selected image without digest to its digest, containers and init containers alike', async () => {
    const { app, ports } = await registry();
    const object = pod('p', 'default', {
      initContainers: [{ name: 'init', image: 'registry.example/app:v1' }],
      containers: [
        { name: 'a', image: 'registry.example/app:v1' },
        { name: 'b', image: 'docker.io/library/nginx:1' },
        { name: 'c', image: `registry.example/app@${app.digest}` },
      ],
    });
    const compiled = compileImageValidatingPolicy(imageValidatingPolicy('pin', spec));
    const mutation = await mutateImageDigests(compiled, inputFor(object), { ports: {}, images: ports });
    expect(mutation.response).toBeUndefined();
    expect(mutation.patches).toEqual([
      { op: 'replace', path: '/spec/initContainers/0/image', value: `registry.example/app:v1@${app.digest}` },
      { op: 'replace', path: '/spec/containers/0/image', value: `registry.example/app:v1@${app.digest}` },
    ]);
  });

  it('pins the template of a pod controller (autogen)', async () => {
    const { app, ports } = await registry();
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', namespace: 'default' },
      spec: { template: { spec: { containers: [{ name: 'a', image: 'registry.example/app:v1' }] } } },
    } as KubeObject;
    const compiled = compileImageValidatingPolicy(imageValidatingPolicy('pin', spec));
    const mutation = await mutateImageDigests(compiled, inputFor(deployment), { ports: {}, images: ports });
    expect(mutation.patches).toEqual([
      { op: 'replace', path: '/spec/template/spec/containers/0/image', value: `registry.example/app:v1@${app.digest}` },
    ]);
  });

  it("applies an autogen config's own match conditions to the pod controller it selects", async () => {
    const { app, ports } = await registry();
    const cronJob = (labels: Record<string, string>) =>
      ({
        apiVersion: 'batch/v1',
        kind: 'CronJob',
        metadata: { name: 'c', namespace: 'default' },
        spec: {
          schedule: '* * * * *',
          jobTemplate: {
            spec: {
              template: {
                metadata: { labels },
                spec: { containers: [{ name: 'a', image: 'registry.example/app:v1' }] },
              },
            },
          },
        },
      }) as KubeObject;
    const compiled = compileImageValidatingPolicy(
      imageValidatingPolicy('pin', {
        ...spec,
        autogen: { podControllers: { controllers: ['cronjobs'] } },
        matchConditions: [
          { name: 'prod', expression: 'has(object.metadata.labels) && has(object.metadata.labels.prod)' },
        ],
      }),
    );
    // The CronJob itself has no labels: the Pod's condition, rewritten for the job template, holds.
    const pinned = await mutateImageDigests(compiled, inputFor(cronJob({ prod: 'true' })), {
      ports: {},
      images: ports,
    });
    expect(pinned.patches).toEqual([
      {
        op: 'replace',
        path: '/spec/jobTemplate/spec/template/spec/containers/0/image',
        value: `registry.example/app:v1@${app.digest}`,
      },
    ]);
    const unlabelled = await mutateImageDigests(compiled, inputFor(cronJob({})), { ports: {}, images: ports });
    expect(unlabelled.patches).toEqual([]);
  });

  it('gives the policy a mutateDigest error for an image it cannot resolve, keeping the others', async () => {
    const { app, ports } = await registry();
    const object = pod('p', 'default', {
      containers: [
        { name: 'a', image: 'registry.example/missing:v1' },
        { name: 'b', image: 'registry.example/app:v1' },
      ],
    });
    const compiled = compileImageValidatingPolicy(imageValidatingPolicy('pin', spec));
    const mutation = await mutateImageDigests(compiled, inputFor(object), { ports: {}, images: ports });
    expect(mutation.patches).toEqual([
      { op: 'replace', path: '/spec/containers/1/image', value: `registry.example/app:v1@${app.digest}` },
    ]);
    expect(mutation.response?.rules).toEqual([
      {
        name: 'mutateDigest',
        type: 'ImageVerify',
        status: 'error',
        message:
          'failed to update digest: failed to resolve digest for image registry.example/missing:v1: the image was not found in its registry',
      },
    ]);
    const unconfigured = await mutateImageDigests(compiled, inputFor(object), { ports: {} });
    expect(unconfigured.response?.rules[0]?.message).toContain('image verification is not configured');
  });

  it('does nothing when mutateDigest is off, the conditions do not hold, or an exception exempts the pod', async () => {
    const { ports } = await registry();
    const object = pod('p', 'default', { containers: [{ name: 'a', image: 'registry.example/app:v1' }] });
    const off = compileImageValidatingPolicy(
      imageValidatingPolicy('off', { ...spec, validationConfigurations: { mutateDigest: false } }),
    );
    expect(await mutateImageDigests(off, inputFor(object), { ports: {}, images: ports })).toEqual({ patches: [] });
    const conditional = compileImageValidatingPolicy(
      imageValidatingPolicy('cond', {
        ...spec,
        matchConditions: [{ name: 'l', expression: 'has(object.metadata.labels)' }],
      }),
    );
    expect(await mutateImageDigests(conditional, inputFor(object), { ports: {}, images: ports })).toEqual({
      patches: [],
    });
    const compiled = compileImageValidatingPolicy(imageValidatingPolicy('pin', spec));
    const exemption = compileCelPolicyException({
      apiVersion: 'policies.kyverno.io/v1',
      kind: 'PolicyException',
      metadata: { name: 'x', namespace: 'kyverno' },
      spec: { policyRefs: [{ name: 'pin', kind: 'ImageValidatingPolicy' }] },
    } as KubeObject);
    const exempt = { ports: {}, images: ports, exceptions: [exemption] };
    expect(await mutateImageDigests(compiled, inputFor(object), exempt)).toEqual({ patches: [] });
    expect((await mutateImageDigests(compiled, inputFor(object), { ports: {}, images: ports })).patches).toHaveLength(
      1,
    );
  });
});

describe('imageVerificationOutcomePatches', () => {
  it('writes kyverno.io/image-verification-outcomes as Kyverno 1.18 wrote it', () => {
    const patches = imageVerificationOutcomePatches(
      [
        {
          policy: { name: 'check', kind: 'ImageValidatingPolicy' },
          resource: { apiVersion: 'v1', kind: 'Pod', name: 'p' },
          rules: [{ name: 'check', type: 'ImageVerify', status: 'pass', message: 'success' }],
          validationFailureAction: 'Enforce',
        },
      ],
      false,
    );
    expect(patches).toEqual([
      { op: 'add', path: '/metadata/annotations', value: {} },
      {
        op: 'add',
        path: '/metadata/annotations/kyverno.io~1image-verification-outcomes',
        value: '{"check":{"name":"check","ruleType":"ImageVerify","message":"success","status":"pass"}}',
      },
    ]);
  });
});
