import { beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '@edict/foundation';
import { cosignAttest, cosignSign, generateKeyPair, InMemoryOci, pushImage } from '@edict/image-verify/testing';
import { imageValidatingPolicy, inputFor, matching, pod } from '../testing';
import { compileImageValidatingPolicy } from './compile';
import { evaluateImageValidatingPolicy } from './evaluate';
import type { ImageValidatingPolicyContext } from './ports';
import type { ImageValidatingPolicySpec } from './types';

const REPO = 'registry.example/team/app';
const VULNS = 'https://cosign.sigstore.dev/attestation/vuln/v1';

function policy(publicKey: string, extra: Partial<ImageValidatingPolicySpec> = {}): ImageValidatingPolicySpec {
  return {
    matchConstraints: matching('', 'v1', 'pods'),
    matchImageReferences: [{ glob: 'registry.example/*' }],
    attestors: [{ name: 'cosign', cosign: { key: { data: publicKey }, ctlog: { insecureIgnoreTlog: true } } }],
    attestations: [{ name: 'vulns', intoto: { type: VULNS } }],
    validations: [
      {
        expression: 'images.containers.all(i, verifyImageSignatures(i, [attestors.cosign]) > 0)',
        message: 'image is not signed by the team key',
      },
    ],
    ...extra,
  };
}

const podWith = (image: string): KubeObject => pod('p', 'default', { containers: [{ name: 'c', image }] });

describe('ImageValidatingPolicy with Cosign keys (in-memory registry)', () => {
  let key: { publicKeyPem: string; privateKeyPem: string };
  let signed: string;
  let unsigned: string;
  let context: ImageValidatingPolicyContext;

  beforeAll(async () => {
    key = generateKeyPair();
    const oci = new InMemoryOci();
    const a = await pushImage(oci, REPO, 'signed', 'signed');
    await cosignSign(oci, `${REPO}:signed`, key.privateKeyPem);
    await cosignAttest(oci, `${REPO}:signed`, key.privateKeyPem, { scanner: { result: { critical: 0 } } }, VULNS);
    const b = await pushImage(oci, REPO, 'unsigned', 'unsigned');
    signed = `${REPO}@${a.digest}`;
    unsigned = `${REPO}@${b.digest}`;
    context = { ports: {}, images: { oci: () => oci } };
  });

  const evaluate = (spec: ImageValidatingPolicySpec, image: string) =>
    evaluateImageValidatingPolicy(
      compileImageValidatingPolicy(imageValidatingPolicy('cosign', spec)),
      inputFor(podWith(image)),
      context,
    );

  it('passes an image signed with the key, digest given (verifyDigest and required hold)', async () => {
    expect((await evaluate(policy(key.publicKeyPem), signed))?.rules).toEqual([
      { name: 'cosign', type: 'ImageVerify', status: 'pass', message: 'success' },
    ]);
  });

  it('fails an unsigned image and one signed with another key', async () => {
    expect((await evaluate(policy(key.publicKeyPem), unsigned))?.rules[0]).toMatchObject({
      status: 'fail',
      message: 'image is not signed by the team key',
    });
    expect((await evaluate(policy(generateKeyPair().publicKeyPem), signed))?.rules[0]?.status).toBe('fail');
  });

  it('checks an in-toto attestation and its predicate', async () => {
    const attested = (critical: number) =>
      policy(key.publicKeyPem, {
        validations: [
          {
            expression: `images.containers.all(i, verifyAttestationSignatures(i, attestations.vulns, [attestors.cosign]) > 0 && extractPayload(i, attestations.vulns).scanner.result.critical == ${critical})`,
            message: 'critical vulnerabilities',
          },
        ],
      });
    expect((await evaluate(attested(0), signed))?.rules[0]?.status).toBe('pass');
    expect((await evaluate(attested(1), signed))?.rules[0]).toMatchObject({
      status: 'fail',
      message: 'critical vulnerabilities',
    });
  });

  it('takes the key from an expression', async () => {
    const spec = policy('', {
      attestors: [
        {
          name: 'cosign',
          cosign: { key: { expression: JSON.stringify(key.publicKeyPem) }, ctlog: { insecureIgnoreTlog: true } },
        },
      ],
    });
    expect((await evaluate(spec, signed))?.rules[0]?.status).toBe('pass');
  });
});
