import { beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '@edict/foundation';
import { createTestCa, InMemoryOci, notationAttest, notationSign, pushImage } from '@edict/image-verify/testing';
import type { IvpolPorts } from '@edict/cel-policies';
import { defaultEngineFactory } from './default-engine';
import { runTests, type TestRun } from './run-tests';
import { writeTree } from './testing/temp-tree';
import { yaml } from './testing/fixtures';

const REPO = 'registry.example/kyverno/test-verify-image';
const SBOM = 'sbom/cyclone-dx';

const policy = (certs: string): JsonObject => ({
  apiVersion: 'policies.kyverno.io/v1beta1',
  kind: 'ImageValidatingPolicy',
  metadata: { name: 'ivpol-sample' },
  spec: {
    failurePolicy: 'Ignore',
    validationConfigurations: { verifyDigest: false },
    matchConstraints: {
      resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
    },
    matchImageReferences: [{ glob: 'registry.example/*' }],
    attestors: [{ name: 'notary', notary: { certs: { value: certs } } }],
    attestations: [{ name: 'sbom', referrer: { type: SBOM } }],
    validations: [
      {
        expression: 'images.containers.all(i, verifyImageSignatures(i, [attestors.notary]) > 0)',
        message: 'failed to verify image with notary cert',
      },
      {
        expression:
          "images.containers.map(image, verifyAttestationSignatures(image, attestations.sbom, [attestors.notary]) > 0 && extractPayload(image, attestations.sbom).bomFormat == 'CycloneDX').all(e, e)",
        message: 'sbom is not a verified cyclone dx sbom',
      },
    ],
  },
});

const pod = (name: string, image: string): JsonObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default' },
  spec: { containers: [{ name: 'c', image }] },
});

const testFile = yaml({
  apiVersion: 'cli.kyverno.io/v1alpha1',
  kind: 'Test',
  metadata: { name: 'ivpol' },
  policies: ['policy.yaml'],
  resources: ['resources.yaml'],
  results: [
    { isImageValidatingPolicy: true, policy: 'ivpol-sample', kind: 'Pod', resources: ['bad-pod'], result: 'fail' },
    { isImageValidatingPolicy: true, policy: 'ivpol-sample', kind: 'Pod', resources: ['good-pod'], result: 'pass' },
  ],
});

describe('ImageValidatingPolicies in Kyverno CLI tests', () => {
  let files: Record<string, string>;
  let images: IvpolPorts;

  beforeAll(async () => {
    const root = await createTestCa();
    const leaf = await root.issue({ commonName: 'signer' });
    const oci = new InMemoryOci();
    const sign = { keyPem: leaf.keyPem, certChainPem: leaf.certPem + root.certPem };
    await pushImage(oci, REPO, 'signed', 'signed');
    await notationSign(oci, `${REPO}:signed`, sign);
    await notationAttest(oci, `${REPO}:signed`, SBOM, { bomFormat: 'CycloneDX' }, sign);
    await pushImage(oci, REPO, 'unsigned', 'unsigned');
    images = { oci: () => oci };
    files = {
      'kyverno-test.yaml': testFile,
      'policy.yaml': yaml(policy(root.certPem)),
      'resources.yaml': [yaml(pod('bad-pod', `${REPO}:unsigned`)), yaml(pod('good-pod', `${REPO}:signed`))].join(
        '---\n',
      ),
    };
  });

  async function run(ports?: IvpolPorts): Promise<TestRun> {
    const dir = writeTree(files);
    const { runs } = await runTests([dir], {
      engineFactory: defaultEngineFactory,
      cwd: dir,
      ...(ports ? { images: ports } : {}),
    });
    expect(runs).toHaveLength(1);
    return runs[0] as TestRun;
  }

  it('passes the signed pod and fails the unsigned one, reading the registry given', async () => {
    const result = await run(images);
    expect(result.errors).toEqual([]);
    expect(result.strict.map((check) => [check.resource, check.got, check.passed])).toEqual([
      ['Pod/bad-pod', 'fail', true],
      ['Pod/good-pod', 'pass', true],
    ]);
    expect(result.policyKinds).toEqual(['ImageValidatingPolicy']);
  });

  it('reads no registry unless given one: every verification is then an error', async () => {
    const result = await run();
    expect(result.strict.map((check) => [check.got, check.message])).toEqual([
      [
        'error',
        'failed to evaluate policy: image verification is not configured: no registry access was given to Edict',
      ],
      [
        'error',
        'failed to evaluate policy: image verification is not configured: no registry access was given to Edict',
      ],
    ]);
  });
});
