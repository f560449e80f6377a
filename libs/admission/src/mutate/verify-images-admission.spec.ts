import { Engine, IMAGE_VERIFY_ANNOTATION, type ResourceRequest } from '@edict/engine';
import { signedImageRegistry, type SignedImageRegistry } from '@edict/engine/testing';
import type { KubeObject } from '@edict/foundation';
import { applyPatch, deepClone } from 'fast-json-patch';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseAdmissionConfig } from '../config/parse-config';
import { compilePolicies } from '../testing/fixtures';
import { validateAdmission } from '../validate/validate-admission';
import { mutateAdmission } from './mutate-admission';

const config = parseAdmissionConfig({}, { controllerNamespace: 'edict' }).config;

let registry: SignedImageRegistry;
beforeAll(async () => {
  registry = await signedImageRegistry();
});

function policyYaml(options: { action?: string; failurePolicy?: string; mutateDigest?: boolean } = {}): string {
  const cert = registry.root.certPem
    .trim()
    .split('\n')
    .map((line) => `                ${line}`)
    .join('\n');
  return `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: signed-images
spec:
  failurePolicy: ${options.failurePolicy ?? 'Fail'}
  rules:
  - name: notary
    match:
      any:
      - resources:
          kinds: [Pod]
    verifyImages:
    - type: Notary
      failureAction: ${options.action ?? 'Enforce'}
      mutateDigest: ${options.mutateDigest ?? true}
      imageReferences: ['registry.local/*']
      attestors:
      - entries:
        - certificates:
            cert: |-
${cert}
`;
}

function podRequest(image: string): { object: KubeObject; request: ResourceRequest } {
  const object: KubeObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'app', namespace: 'shop', uid: 'u-1' },
    spec: { containers: [{ name: 'app', image }] },
  };
  return { object, request: { operation: 'CREATE', resource: object } };
}

describe('mutateAdmission with verifyImages policies', () => {
  it('admits a signed image with the digest and the verify-images annotation patched in, then validates', async () => {
    const engine = new Engine({ loaders: registry.loaders });
    const policies = compilePolicies(engine, policyYaml());
    const { object, request } = podRequest(registry.signed.image);
    const outcome = await mutateAdmission(request, policies, engine, config);
    expect(outcome.decision.allowed).toBe(true);
    const patched = applyPatch(deepClone(object), outcome.decision.patch!, true, false).newDocument as KubeObject;
    expect(patched).toEqual(outcome.patchedResource);
    const pinned = `registry.local/team/app@${registry.signed.digest}`;
    expect(patched.metadata.annotations).toEqual({ [IMAGE_VERIFY_ANNOTATION]: JSON.stringify({ [pinned]: 'pass' }) });
    expect((patched as unknown as { spec: { containers: { image: string }[] } }).spec.containers[0]!.image).toBe(
      `${registry.signed.image}@${registry.signed.digest}`,
    );
    // The validating webhook sees the patched object: digest present, annotation says pass.
    const validation = await validateAdmission({ operation: 'CREATE', resource: patched }, policies, engine, config);
    expect(validation.decision.allowed).toBe(true);
  });

  it("denies an unsigned image under Enforce with Kyverno's blocked message", async () => {
    const engine = new Engine({ loaders: registry.loaders });
    const { request } = podRequest(registry.unsigned.image);
    const outcome = await mutateAdmission(request, compilePolicies(engine, policyYaml()), engine, config);
    expect(outcome.decision.allowed).toBe(false);
    expect(outcome.decision.message).toContain('resource Pod/shop/app was blocked due to the following policies');
    expect(outcome.decision.message).toContain(`notary: 'failed to verify image ${registry.unsigned.image}:`);
  });

  it('admits an unsigned image under Audit, recording it as failed', async () => {
    const engine = new Engine({ loaders: registry.loaders });
    const { object, request } = podRequest(registry.unsigned.image);
    const policies = compilePolicies(engine, policyYaml({ action: 'Audit', mutateDigest: false }));
    const outcome = await mutateAdmission(request, policies, engine, config);
    expect(outcome.decision.allowed).toBe(true);
    const patched = applyPatch(deepClone(object), outcome.decision.patch!, true, false).newDocument as KubeObject;
    expect(patched.metadata.annotations?.[IMAGE_VERIFY_ANNOTATION]).toBe(
      JSON.stringify({ [registry.unsigned.image]: 'fail' }),
    );
    // Kyverno's handler warns about what it let through.
    expect(outcome.decision.warnings).toEqual([
      expect.stringMatching(
        /^policy signed-images\.notary: failed to verify image registry\.local\/team\/app:unsigned: /,
      ),
    ]);
  });

  it('fails closed without registry access under Fail, and lets the request through under Ignore', async () => {
    const engine = new Engine();
    const { request } = podRequest(registry.signed.image);
    const closed = await mutateAdmission(request, compilePolicies(engine, policyYaml()), engine, config);
    expect(closed.decision.allowed).toBe(false);
    expect(closed.decision.message).toContain('image verification is not configured');
    const open = await mutateAdmission(
      request,
      compilePolicies(engine, policyYaml({ failurePolicy: 'Ignore' })),
      engine,
      config,
    );
    expect(open.decision.allowed).toBe(true);
  });

  it('refuses an UPDATE that forges the annotation', async () => {
    const engine = new Engine({ loaders: registry.loaders });
    const { object } = podRequest(registry.unsigned.image);
    const old = {
      ...object,
      metadata: {
        ...object.metadata,
        annotations: { [IMAGE_VERIFY_ANNOTATION]: JSON.stringify({ [registry.unsigned.image]: 'fail' }) },
      },
    };
    const forged = {
      ...object,
      metadata: {
        ...object.metadata,
        annotations: { [IMAGE_VERIFY_ANNOTATION]: JSON.stringify({ [registry.unsigned.image]: 'pass' }) },
      },
    };
    const outcome = await mutateAdmission(
      { operation: 'UPDATE', resource: forged, oldResource: old },
      compilePolicies(engine, policyYaml()),
      engine,
      config,
    );
    expect(outcome.decision.allowed).toBe(false);
    expect(outcome.decision.message).toContain('kyverno.io/verify-images annotation cannot be changed');
  });
});
