import { beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '@edict/foundation';
import {
  createTestCa,
  InMemoryOci,
  notationAttest,
  notationSign,
  pushImage,
  type TestCa,
  type TestCertificate,
} from '@edict/image-verify/testing';
import { imageValidatingPolicy, inputFor, matching, pod } from '../testing';
import { compileImageValidatingPolicy } from './compile';
import { evaluateImageValidatingPolicies, evaluateImageValidatingPolicy } from './evaluate';
import type { ImageValidatingPolicyContext } from './ports';
import type { ImageValidatingPolicySpec } from './types';

const REPO = 'registry.example/kyverno/test-verify-image';
const SBOM = 'sbom/cyclone-dx';

/** Kyverno's sample ImageValidatingPolicy (notary signatures and an SBOM referrer), its certificate ours. */
function sample(certs: string): ImageValidatingPolicySpec {
  return {
    failurePolicy: 'Ignore',
    validationConfigurations: { verifyDigest: false },
    validationActions: ['Deny'],
    matchConstraints: matching('', 'v1', 'pods'),
    matchConditions: [
      {
        name: 'check-prod-label',
        expression:
          "has(object.metadata.labels) && has(object.metadata.labels.prod) && object.metadata.labels.prod == 'true'",
      },
    ],
    matchImageReferences: [{ glob: 'registry.example/*' }],
    attestors: [{ name: 'notary', notary: { certs: { value: certs } } }],
    attestations: [{ name: 'sbom', referrer: { type: SBOM } }],
    validations: [
      {
        expression: 'images.containers.map(image, verifyImageSignatures(image, [attestors.notary])).all(e, e > 0)',
        message: 'failed to verify image with notary cert',
      },
      {
        expression:
          'images.containers.map(image, verifyAttestationSignatures(image, attestations.sbom ,[attestors.notary])).all(e, e > 0)',
        message: 'failed to verify attestation with notary cer',
      },
      {
        expression:
          "images.containers.map(image, extractPayload(image, attestations.sbom).bomFormat == 'CycloneDX').all(e, e)",
        message: 'sbom is not a cyclone dx sbom',
      },
    ],
  };
}

function prodPod(name: string, image: string): KubeObject {
  return pod(name, 'default', { containers: [{ name: 'nginx', image }] }, { prod: 'true' });
}

describe('ImageValidatingPolicy with notary signatures (in-memory registry)', () => {
  let root: TestCa;
  let leaf: TestCertificate;
  let oci: InMemoryOci;
  let context: ImageValidatingPolicyContext;

  beforeAll(async () => {
    root = await createTestCa();
    leaf = await root.issue({ commonName: 'signer' });
    oci = new InMemoryOci();
    const sign = { keyPem: leaf.keyPem, certChainPem: leaf.certPem + root.certPem };
    await pushImage(oci, REPO, 'signed', 'signed');
    await notationSign(oci, `${REPO}:signed`, sign);
    await notationAttest(oci, `${REPO}:signed`, SBOM, { bomFormat: 'CycloneDX', components: [] }, sign);
    await pushImage(oci, REPO, 'unsigned', 'unsigned');
    await pushImage(oci, REPO, 'spdx', 'spdx');
    await notationSign(oci, `${REPO}:spdx`, sign);
    await notationAttest(oci, `${REPO}:spdx`, SBOM, { bomFormat: 'SPDX', spdxVersion: 'SPDX-2.3' }, sign);
    context = { ports: {}, images: { oci: () => oci } };
  });

  const evaluate = (spec: ImageValidatingPolicySpec, object: KubeObject) =>
    evaluateImageValidatingPolicy(
      compileImageValidatingPolicy(imageValidatingPolicy('ivpol-sample', spec)),
      inputFor(object),
      context,
    );

  it('passes a signed image whose SBOM attestation verifies and is CycloneDX', async () => {
    const response = await evaluate(sample(root.certPem), prodPod('good-pod', `${REPO}:signed`));
    expect(response?.rules).toEqual([
      { name: 'ivpol-sample', type: 'ImageVerify', status: 'pass', message: 'success' },
    ]);
  });

  it('fails an unsigned image with the first validation message', async () => {
    const response = await evaluate(sample(root.certPem), prodPod('bad-pod', `${REPO}:unsigned`));
    expect(response?.rules).toEqual([
      { name: 'ivpol-sample', type: 'ImageVerify', status: 'fail', message: 'failed to verify image with notary cert' },
    ]);
  });

  it('fails a signed image when the trusted certificate is another one', async () => {
    const other = await createTestCa({ commonName: 'other' });
    const response = await evaluate(sample(other.certPem), prodPod('good-pod', `${REPO}:signed`));
    expect(response?.rules[0]).toMatchObject({ status: 'fail', message: 'failed to verify image with notary cert' });
  });

  it('checks the attestation payload extracted after verification', async () => {
    const response = await evaluate(sample(root.certPem), prodPod('spdx-pod', `${REPO}:spdx`));
    expect(response?.rules[0]).toMatchObject({ status: 'fail', message: 'sbom is not a cyclone dx sbom' });
  });

  it('takes the certificates from an expression', async () => {
    const spec = sample('');
    spec.attestors = [{ name: 'notary', notary: { certs: { expression: JSON.stringify(root.certPem) } } }];
    const response = await evaluate(spec, prodPod('good-pod', `${REPO}:signed`));
    expect(response?.rules[0]?.status).toBe('pass');
  });

  it('does not apply to a pod its match condition leaves out, and leaves other registries alone', async () => {
    expect(
      await evaluate(
        sample(root.certPem),
        pod('x', 'default', { containers: [{ name: 'c', image: `${REPO}:unsigned` }] }),
      ),
    ).toBeUndefined();
    const response = await evaluate(sample(root.certPem), prodPod('other', 'docker.io/library/nginx:1'));
    expect(response?.rules[0]?.status).toBe('pass');
  });

  it('lets one policy verification satisfy another policy required check in the same request', async () => {
    const verifying = compileImageValidatingPolicy(
      imageValidatingPolicy('verifying', {
        ...sample(root.certPem),
        validations: sample(root.certPem).validations?.slice(0, 1),
      }),
    );
    const catchAll = compileImageValidatingPolicy(
      imageValidatingPolicy('catch-all', {
        matchConstraints: matching('', 'v1', 'pods'),
        validationConfigurations: { verifyDigest: false },
        validations: [{ expression: 'true' }],
      }),
    );
    const signed = inputFor(prodPod('good', `${REPO}:signed`));
    const both = await evaluateImageValidatingPolicies([catchAll, verifying], signed, context);
    expect(both.map((outcome) => outcome.response?.rules[0]?.status)).toEqual(['pass', 'pass']);
    const alone = await evaluateImageValidatingPolicies([catchAll], signed, context);
    expect(alone[0]?.response?.rules[0]?.message).toBe(
      `image ${REPO}:signed is not verified: no policy performed a signature or attestation check on it`,
    );
    const unsigned = await evaluateImageValidatingPolicies(
      [
        catchAll,
        compileImageValidatingPolicy(
          imageValidatingPolicy('counting', {
            ...sample(root.certPem),
            validations: [
              { expression: 'images.containers.all(i, verifyImageSignatures(i, [attestors.notary]) >= 0)' },
            ],
          }),
        ),
      ],
      inputFor(prodPod('bad', `${REPO}:unsigned`)),
      context,
    );
    expect(unsigned.map((outcome) => outcome.response?.rules[0]?.message)).toEqual([
      `image ${REPO}:unsigned failed signature or attestation verification`,
      `image ${REPO}:unsigned failed signature or attestation verification`,
    ]);
  });
});
