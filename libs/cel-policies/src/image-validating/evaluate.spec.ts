import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@edict/foundation';
import { InMemoryOci, pushImage } from '@edict/image-verify/testing';
import { compileCelPolicyException } from '../exceptions/compile-exception';
import { imageValidatingPolicy, inputFor, matching, pod } from '../testing';
import { compileImageValidatingPolicy } from './compile';
import { evaluateImageValidatingPolicies, evaluateImageValidatingPolicy } from './evaluate';
import type { ImageValidatingPolicyContext, IvpolPorts } from './ports';
import type { ImageValidatingPolicySpec } from './types';

const DIGEST = `sha256:${'a'.repeat(64)}`;

const lenient: ImageValidatingPolicySpec = {
  matchConstraints: matching('', 'v1', 'pods'),
  validationConfigurations: { verifyDigest: false, required: false },
  matchImageReferences: [{ glob: 'registry.example/*' }],
  attestors: [{ name: 'signer', notary: { certs: { value: 'PEM' } } }],
  validations: [{ expression: 'true' }],
};

function podWith(...images: string[]): KubeObject {
  return pod('p', 'default', { containers: images.map((image, i) => ({ name: `c${i}`, image })) });
}

function portsOf(oci: InMemoryOci): IvpolPorts {
  return { oci: () => oci };
}

async function evaluate(
  spec: ImageValidatingPolicySpec,
  object: KubeObject,
  context: ImageValidatingPolicyContext = { ports: {} },
) {
  return evaluateImageValidatingPolicy(
    compileImageValidatingPolicy(imageValidatingPolicy('ivpol', spec)),
    inputFor(object),
    context,
  );
}

describe('evaluateImageValidatingPolicy', () => {
  it('hands the expressions only the images matchImageReferences select, by extractor name', async () => {
    const spec = {
      ...lenient,
      validations: [
        {
          expression: "images.containers == ['registry.example/app:v1'] && images.initContainers == []",
          message: 'wrong images',
        },
      ],
    };
    const response = await evaluate(spec, podWith('registry.example/app:v1', 'docker.io/library/nginx:1'));
    expect(response?.rules).toEqual([{ name: 'ivpol', type: 'ImageVerify', status: 'pass', message: 'success' }]);
    expect(response?.policy).toEqual({ name: 'ivpol', kind: 'ImageValidatingPolicy' });
  });

  it('selects images by expression on `ref`, and with no references selects them all', async () => {
    const byExpression = {
      ...lenient,
      matchImageReferences: [{ expression: "ref.endsWith(':v1')" }],
      validations: [
        { expression: "images.containers == ['docker.io/x:v1']", messageExpression: "images.containers.join(',')" },
      ],
    };
    expect((await evaluate(byExpression, podWith('docker.io/x:v1', 'docker.io/x:v2')))?.rules[0]?.status).toBe('pass');
    const all = { ...lenient, matchImageReferences: [], validations: [{ expression: 'size(images.containers) == 2' }] };
    expect((await evaluate(all, podWith('a:1', 'b:2')))?.rules[0]?.status).toBe('pass');
  });

  it('fails an image without digest under verifyDigest (the default)', async () => {
    const spec = { ...lenient, validationConfigurations: { required: false } };
    const response = await evaluate(spec, podWith('registry.example/app:v1'));
    expect(response?.rules).toEqual([
      {
        name: 'ivpol',
        type: 'ImageVerify',
        status: 'fail',
        message: 'image registry.example/app:v1 does not have a digest',
      },
    ]);
    expect((await evaluate(spec, podWith(`registry.example/app@${DIGEST}`)))?.rules[0]?.status).toBe('pass');
    // A validation that does not hold decides the message; the digest is checked once they all hold.
    const failing = { ...spec, validations: [{ expression: 'false', message: 'not allowed' }] };
    expect((await evaluate(failing, podWith('registry.example/app:v1')))?.rules[0]).toMatchObject({
      status: 'fail',
      message: 'not allowed',
    });
  });

  it('fails an image no policy verified under required (the default), and passes it when not required', async () => {
    const spec = { ...lenient, validationConfigurations: { verifyDigest: false } };
    const response = await evaluate(spec, podWith('registry.example/app:v1'));
    expect(response?.rules[0]).toMatchObject({
      status: 'fail',
      message:
        'image registry.example/app:v1 is not verified: no policy performed a signature or attestation check on it',
    });
    expect((await evaluate(lenient, podWith('registry.example/app:v1')))?.rules[0]?.status).toBe('pass');
    // Images matchImageReferences leave out are not required.
    expect((await evaluate(spec, podWith('docker.io/library/nginx:1')))?.rules[0]?.status).toBe('pass');
  });

  it('fails closed when no registry access is configured, and failurePolicy travels with the error', async () => {
    const spec = {
      ...lenient,
      failurePolicy: 'Ignore' as const,
      validations: [{ expression: "verifyImageSignatures('registry.example/app:v1', [attestors.signer]) > 0" }],
    };
    const response = await evaluate(spec, podWith('registry.example/app:v1'));
    expect(response?.rules[0]).toMatchObject({ name: 'evaluation', type: 'ImageVerify', status: 'error' });
    expect(response?.rules[0]?.message).toContain('image verification is not configured');
    expect(response?.failurePolicy).toBe('Ignore');
  });

  it('counts nothing for an image matchImageReferences do not select, without touching the registry', async () => {
    const oci = new InMemoryOci();
    const spec = {
      ...lenient,
      validations: [{ expression: "verifyImageSignatures('docker.io/x:1', [attestors.signer]) == 0" }],
    };
    const response = await evaluate(spec, podWith('docker.io/x:1'), { ports: {}, images: portsOf(oci) });
    expect(response?.rules[0]?.status).toBe('pass');
    expect(oci.calls).toEqual([]);
  });

  it('makes a registry that is down an error, never a pass', async () => {
    const oci = new InMemoryOci();
    oci.failing = new Error('connection refused');
    const spec = { ...lenient, validations: [{ expression: "getImageData('registry.example/app:v1').digest != ''" }] };
    const response = await evaluate(spec, podWith('registry.example/app:v1'), { ports: {}, images: portsOf(oci) });
    expect(response?.rules[0]).toMatchObject({ status: 'error' });
    expect(response?.rules[0]?.message).toContain('connection refused');
  });

  it('reads image data (digest, manifest, config) through the port', async () => {
    const oci = new InMemoryOci();
    const { digest } = await pushImage(oci, 'registry.example/app', 'v1', 'seed-1');
    const spec = {
      ...lenient,
      validations: [
        {
          expression: `images.containers.all(i, getImageData(i).digest == '${digest}' && getImageData(i).config.os == 'linux')`,
        },
      ],
    };
    const response = await evaluate(spec, podWith('registry.example/app:v1'), { ports: {}, images: portsOf(oci) });
    expect(response?.rules[0]?.status).toBe('pass');
    // Asked twice, read once per evaluation.
    expect(oci.calls.filter((call) => call.startsWith('getManifest'))).toEqual(['getManifest registry.example/app v1']);
  });

  it('refuses attestors that are not the policy own, and unknown attestations', async () => {
    const spec = {
      ...lenient,
      validations: [{ expression: "verifyImageSignatures('registry.example/a:1', [{'name': 'other'}]) > 0" }],
    };
    const response = await evaluate(spec, podWith('registry.example/a:1'), {
      ports: {},
      images: portsOf(new InMemoryOci()),
    });
    expect(response?.rules[0]?.message).toContain('not an attestor of this policy: "other"');
    const payload = {
      ...lenient,
      validations: [{ expression: "extractPayload('registry.example/a:1', 'nope') != null" }],
    };
    const second = await evaluate(payload, podWith('registry.example/a:1'));
    expect(second?.rules[0]?.message).toContain('attestation not found in policy: nope');
  });

  it('refuses extractPayload before the attestation was verified', async () => {
    const spec = {
      ...lenient,
      attestations: [{ name: 'sbom', intoto: { type: 'https://cyclonedx.org/bom' } }],
      validations: [
        { expression: "extractPayload('registry.example/a:1', attestations.sbom).bomFormat == 'CycloneDX'" },
      ],
    };
    const response = await evaluate(spec, podWith('registry.example/a:1'));
    expect(response?.rules[0]?.message).toContain('cannot be fetched before verifying');
  });

  it('bounds the images a resource may bring', async () => {
    const images = Array.from({ length: 5 }, (_, i) => `registry.example/app:v${i}`);
    const response = await evaluate(lenient, podWith(...images), { ports: {}, maxImages: 4 });
    expect(response?.rules[0]?.message).toContain('the resource has 5 images to verify, more than the limit of 4');
  });

  it('does not apply when match conditions are false or the object is outside a namespaced policy', async () => {
    const conditional = {
      ...lenient,
      matchConditions: [{ name: 'labelled', expression: 'has(object.metadata.labels)' }],
    };
    expect(await evaluate(conditional, podWith('registry.example/a:1'))).toBeUndefined();
    const namespaced = compileImageValidatingPolicy(imageValidatingPolicy('n', lenient, 'team'));
    expect(namespaced.kind).toBe('NamespacedImageValidatingPolicy');
    expect(
      await evaluateImageValidatingPolicy(namespaced, inputFor(podWith('registry.example/a:1')), { ports: {} }),
    ).toBeUndefined();
    const inside = pod('p', 'team', { containers: [{ name: 'c', image: 'registry.example/a:1' }] });
    expect((await evaluateImageValidatingPolicy(namespaced, inputFor(inside), { ports: {} }))?.policy).toEqual({
      name: 'n',
      kind: 'NamespacedImageValidatingPolicy',
      namespace: 'team',
    });
  });

  it('takes exceptions: a full one skips, one with images hands them to the expressions', async () => {
    const exception = (name: string, spec: Record<string, unknown>) =>
      compileCelPolicyException({
        apiVersion: 'policies.kyverno.io/v1',
        kind: 'PolicyException',
        metadata: { name, namespace: 'kyverno' },
        spec: { policyRefs: [{ name: 'ivpol', kind: 'ImageValidatingPolicy' }], ...spec },
      } as KubeObject);
    const failing = { ...lenient, validations: [{ expression: 'false', message: 'never' }] };
    const full = await evaluate(failing, podWith('registry.example/a:1'), {
      ports: {},
      exceptions: [exception('all', {})],
    });
    expect(full?.rules).toEqual([
      {
        name: 'exception',
        type: 'Validation',
        status: 'skip',
        message: 'rule is skipped due to policy exception: kyverno/all',
        exceptions: ['kyverno/all'],
      },
    ]);
    const scoped = {
      ...lenient,
      validations: [{ expression: 'images.containers.all(i, i in exceptions.allowedImages)', message: 'not allowed' }],
    };
    const partial = await evaluate(scoped, podWith('registry.example/a:1'), {
      ports: {},
      exceptions: [exception('some', { images: ['registry.example/a:1'] })],
    });
    expect(partial?.rules[0]?.status).toBe('pass');
    const otherKind = exception('vpol', { policyRefs: [{ name: 'ivpol', kind: 'ValidatingPolicy' }] });
    expect(
      (await evaluate(failing, podWith('registry.example/a:1'), { ports: {}, exceptions: [otherKind] }))?.rules[0]
        ?.status,
    ).toBe('fail');
  });

  it('runs its autogen config on a Deployment, reading the pod template images', async () => {
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', namespace: 'default' },
      spec: { template: { spec: { containers: [{ name: 'c', image: 'registry.example/app:v1' }] } } },
    } as KubeObject;
    const spec = { ...lenient, validations: [{ expression: "images.containers == ['registry.example/app:v1']" }] };
    const response = await evaluate(spec, deployment);
    expect(response?.rules[0]?.status).toBe('pass');
    expect(response?.resource).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'd', namespace: 'default' });
  });

  it('evaluates a JSON payload in JSON mode, with the images its own extractors find', async () => {
    const spec: ImageValidatingPolicySpec = {
      ...lenient,
      matchConstraints: undefined,
      evaluation: { mode: 'JSON' },
      images: [{ name: 'refs', expression: 'object.images' }],
      validations: [{ expression: "images.refs == ['registry.example/app:v1']", message: 'wrong images' }],
    };
    const compiled = compileImageValidatingPolicy(imageValidatingPolicy('json', spec));
    expect(compiled.autogen).toEqual([]);
    const response = await evaluateImageValidatingPolicy(
      compiled,
      {
        request: { operation: 'CREATE' },
        resource: { group: '', version: '', resource: '' },
        jsonPayload: { images: ['registry.example/app:v1', 'docker.io/x:1'] },
      },
      { ports: {} },
    );
    expect(response?.rules[0]?.status).toBe('pass');
  });

  it('reports a failed validation with its message and the policy audit annotations', async () => {
    const spec = {
      ...lenient,
      validationActions: ['Audit' as const, 'Warn' as const],
      auditAnnotations: [{ key: 'count', valueExpression: 'string(size(images.containers))' }],
      validations: [
        { expression: 'size(images.containers) == 0', messageExpression: "'found ' + images.containers[0]" },
      ],
    };
    const response = await evaluate(spec, podWith('registry.example/app:v1'));
    expect(response).toMatchObject({
      rules: [{ status: 'fail', message: 'found registry.example/app:v1', properties: { count: '1' } }],
      validationFailureAction: 'Audit',
      warnings: ['found registry.example/app:v1'],
      auditAnnotations: { 'ivpol/count': '1' },
    });
  });
});

describe('evaluateImageValidatingPolicies', () => {
  it('reports the matched images of each policy and enforces required on them', async () => {
    const oci = new InMemoryOci();
    const required = compileImageValidatingPolicy(
      imageValidatingPolicy('catch-all', { ...lenient, validationConfigurations: { verifyDigest: false } }),
    );
    const outcomes = await evaluateImageValidatingPolicies([required], inputFor(podWith('registry.example/app:v1')), {
      ports: {},
      images: portsOf(oci),
    });
    expect(outcomes.map((outcome) => outcome.matchedImages)).toEqual([['registry.example/app:v1']]);
    expect(outcomes[0]?.response?.rules[0]?.status).toBe('fail');
  });
});
