import { compileImageValidatingPolicy, type CompiledImageValidatingPolicy } from '@edict/cel-policies';
import type { KubeObject } from '@edict/foundation';
import { InMemoryOci, pushImage } from '@edict/image-verify/testing';
import { describe, expect, it } from 'vitest';
import { parseAdmissionConfig } from '../config/parse-config';
import { toResourceRequest } from '../request/to-resource-request';
import type { AdmissionRequest } from '../review/types';
import { podCreateReview } from '../testing/fixtures';
import { imagePolicyMutation, imagePolicyValidation, type ImagePolicyAdmissionOptions } from './image-policy-admission';

const config = parseAdmissionConfig({}, { controllerNamespace: 'edict' }).config;
const IMAGE = 'registry.example/team/app:1.0';

/** An ImageValidatingPolicy on Pods whose images must come from registry.example (no signature check). */
function fromRegistry(name: string, spec: Record<string, unknown> = {}): CompiledImageValidatingPolicy {
  return compileImageValidatingPolicy({
    apiVersion: 'policies.kyverno.io/v1',
    kind: 'ImageValidatingPolicy',
    metadata: { name, uid: `${name}-uid` },
    spec: {
      matchConstraints: {
        resourceRules: [
          { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['pods'] },
        ],
      },
      matchImageReferences: [{ glob: '*' }],
      validationConfigurations: { mutateDigest: true, verifyDigest: false, required: false },
      attestors: [],
      validations: [
        {
          expression: "images.containers.all(image, image.startsWith('registry.example/'))",
          message: 'images come from registry.example',
        },
      ],
      ...spec,
    },
  } as unknown as KubeObject);
}

function request(image: string, change: (r: AdmissionRequest) => void = () => undefined) {
  const review = podCreateReview();
  const pod = review.request.object as unknown as { spec: { containers: Array<{ image: string }> } };
  pod.spec.containers = [{ ...pod.spec.containers[0]!, image }];
  change(review.request);
  return toResourceRequest(review.request);
}

async function registry() {
  const oci = new InMemoryOci();
  const { digest } = await pushImage(oci, 'registry.example/team/app', '1.0');
  const options: ImagePolicyAdmissionOptions = {
    context: { ports: {}, images: { oci: () => oci } },
    now: () => new Date('2026-11-29T10:00:00Z'),
  };
  return { digest, options };
}

describe('imagePolicyMutation', () => {
  it('pins a matched tag to the digest the registry resolves it to', async () => {
    const { digest, options } = await registry();
    const { decision } = await imagePolicyMutation(request(IMAGE), [fromRegistry('pin')], {}, config, options);
    expect(decision.allowed).toBe(true);
    expect(decision.patch).toEqual([{ op: 'replace', path: '/spec/containers/0/image', value: `${IMAGE}@${digest}` }]);
  });

  it('never refuses: an unresolvable image only warns, and only under Warn', async () => {
    const { options } = await registry();
    const missing = 'registry.example/team/app:gone';
    const denyOnly = await imagePolicyMutation(request(missing), [fromRegistry('pin')], {}, config, options);
    expect(denyOnly.decision).toEqual({ allowed: true });
    expect(denyOnly.responses[0]!.rules[0]).toMatchObject({ status: 'error' });
    const warn = await imagePolicyMutation(
      request(missing),
      [fromRegistry('pin', { validationActions: ['Warn'] })],
      {},
      config,
      options,
    );
    expect(warn.decision.allowed).toBe(true);
    expect(warn.decision.warnings?.[0]).toMatch(/^Policy pin error: failed to update digest/);
  });

  it('leaves DELETE alone and serves only the policies the path names', async () => {
    const { options } = await registry();
    const deleting = await imagePolicyMutation(
      request(IMAGE, (r) => (r.operation = 'DELETE')),
      [fromRegistry('pin')],
      {},
      config,
      options,
    );
    expect(deleting.decision).toEqual({ allowed: true });
    const other = await imagePolicyMutation(
      request(IMAGE),
      [fromRegistry('pin')],
      { names: ['other'] },
      config,
      options,
    );
    expect(other.decision.patch).toBeUndefined();
  });
});

describe('imagePolicyValidation', () => {
  it("denies under Deny with Kyverno's message, and reports an admitted Audit result as KyvernoImageValidatingPolicy", async () => {
    const { options } = await registry();
    const denied = await imagePolicyValidation(
      request('docker.io/nginx:1'),
      [fromRegistry('origin')],
      {},
      config,
      options,
    );
    expect(denied.decision).toEqual({
      allowed: false,
      message: 'Policy origin failed: images come from registry.example',
    });
    expect(denied.reportResults).toEqual([]);

    const audited = await imagePolicyValidation(
      request('docker.io/nginx:1'),
      [fromRegistry('origin', { validationActions: ['Audit'] })],
      {},
      config,
      options,
    );
    expect(audited.decision.allowed).toBe(true);
    expect(audited.reportResults).toMatchObject([
      {
        source: 'KyvernoImageValidatingPolicy',
        policy: 'origin',
        result: 'fail',
        message: 'images come from registry.example',
      },
    ]);
    expect(audited.evaluations.map(({ response }) => response.policy.kind)).toEqual(['ImageValidatingPolicy']);
  });

  it('denies an image without digest under verifyDigest, whatever annotation the request carries', async () => {
    const { options } = await registry();
    const forged = (r: AdmissionRequest) => {
      const metadata = (r.object as { metadata: { annotations?: Record<string, string> } }).metadata;
      metadata.annotations = {
        'kyverno.io/image-verification-outcomes': JSON.stringify({ strict: { name: 'strict', status: 'pass' } }),
      };
    };
    const strict = fromRegistry('strict', {
      validationConfigurations: { mutateDigest: false, verifyDigest: true, required: false },
    });
    const outcome = await imagePolicyValidation(request(IMAGE, forged), [strict], {}, config, options);
    expect(outcome.decision.allowed).toBe(false);
    expect(outcome.decision.message).toBe(`Policy strict failed: image ${IMAGE} does not have a digest`);
  });
});
