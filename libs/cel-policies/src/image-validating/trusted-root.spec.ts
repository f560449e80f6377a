import { beforeAll, describe, expect, it } from 'vitest';
import type { TrustedRootSource } from '@edict/image-verify';
import {
  createSigstoreTestTrust,
  InMemoryOci,
  pushImage,
  sigstoreBundleSign,
  type SigstoreTestTrust,
} from '@edict/image-verify/testing';
import { imageValidatingPolicy, inputFor, matching, pod } from '../testing';
import { compileImageValidatingPolicy } from './compile';
import { evaluateImageValidatingPolicy } from './evaluate';
import type { IvpolPorts } from './ports';
import type { ImageValidatingPolicySpec } from './types';

const REPO = 'registry.example/team/app';
const SUBJECT = 'https://github.com/edict/app/.github/workflows/release.yml@refs/heads/main';
const ISSUER = 'https://token.actions.githubusercontent.com';
const SBOM = 'https://cyclonedx.org/bom';

/** Keyless, no roots or log keys of its own: it needs the controller's trusted root. */
const spec: ImageValidatingPolicySpec = {
  matchConstraints: matching('', 'v1', 'pods'),
  matchImageReferences: [{ glob: 'registry.example/*' }],
  attestors: [{ name: 'keyless', cosign: { keyless: { identities: [{ subject: SUBJECT, issuer: ISSUER }] } } }],
  attestations: [{ name: 'sbom', referrer: { type: SBOM } }],
  validations: [
    {
      expression:
        'images.containers.all(i, verifyAttestationSignatures(i, attestations.sbom, [attestors.keyless]) > 0)',
      message: 'no SBOM signed by the release workflow',
    },
  ],
};

describe('ImageValidatingPolicy keyless attestors and the controller trusted root', () => {
  let trust: SigstoreTestTrust;
  let oci: InMemoryOci;
  let image: string;

  beforeAll(async () => {
    trust = await createSigstoreTestTrust();
    oci = new InMemoryOci();
    const pushed = await pushImage(oci, REPO, 'v1');
    await sigstoreBundleSign(oci, `${REPO}:v1`, trust, {
      subject: SUBJECT,
      issuer: ISSUER,
      predicateType: SBOM,
      predicate: { bomFormat: 'CycloneDX' },
    });
    image = `${REPO}@${pushed.digest}`;
  });

  const evaluate = (ports: IvpolPorts) =>
    evaluateImageValidatingPolicy(
      compileImageValidatingPolicy(imageValidatingPolicy('keyless', spec)),
      inputFor(pod('p', 'default', { containers: [{ name: 'c', image }] })),
      { ports: {}, images: ports },
    );

  it('verifies with the trusted root the ports give, read only when an attestor needs it', async () => {
    let reads = 0;
    const root: TrustedRootSource = { trustedRootJson: trust.trustedRootJson };
    const response = await evaluate({
      oci: () => oci,
      trustedRoot: () => {
        reads++;
        return Promise.resolve(root);
      },
    });
    expect(response?.rules[0]).toMatchObject({ status: 'pass' });
    expect(reads).toBeGreaterThan(0);
  });

  it('fails closed without a trusted root (none configured, or the ports give none)', async () => {
    for (const ports of [{ oci: () => oci }, { oci: () => oci, trustedRoot: () => Promise.resolve(undefined) }]) {
      const response = await evaluate(ports);
      expect(response?.rules[0]?.status).not.toBe('pass');
    }
  });
});
