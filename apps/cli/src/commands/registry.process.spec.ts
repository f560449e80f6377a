import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { defaultEngineFactory } from '@edict/kyverno-test';
import { writeTree, yaml } from '@edict/kyverno-test/testing';
import { createTestCa, notationAttest, notationSign, pushImage } from '@edict/image-verify/testing';
import { registryClientForTests, startLocalRegistry, type LocalRegistry } from '@edict/registry/testing';
import { buildProgram } from '../program';
import { cliRegistry } from './registry';

const SBOM = 'sbom/cyclone-dx';

async function cli(args: string[]) {
  let out = '';
  let err = '';
  const io = { out: (t: string) => void (out += t), err: (t: string) => void (err += t) };
  const result = { code: 0 };
  await buildProgram(io, result, defaultEngineFactory).parseAsync(['node', 'edict', ...args]);
  return { out, err, code: result.code };
}

describe('edict test --registry against a real registry (docker-registry on loopback)', () => {
  let registry: LocalRegistry;
  let dir: string;

  beforeAll(async () => {
    registry = await startLocalRegistry();
    const writer = registryClientForTests();
    const oci = writer.oci({ allowInsecure: true });
    const repo = `${registry.host}/team/app`;
    const root = await createTestCa();
    const leaf = await root.issue({ commonName: 'signer' });
    const sign = { keyPem: leaf.keyPem, certChainPem: leaf.certPem + root.certPem };
    await pushImage(oci, repo, 'signed', 'signed');
    await notationSign(oci, `${repo}:signed`, sign);
    await notationAttest(oci, `${repo}:signed`, SBOM, { bomFormat: 'CycloneDX' }, sign);
    await pushImage(oci, repo, 'unsigned', 'unsigned');
    writer.close();
    const pod = (name: string, image: string) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'default' },
      spec: { containers: [{ name: 'c', image }] },
    });
    dir = writeTree({
      'kyverno-test.yaml': yaml({
        apiVersion: 'cli.kyverno.io/v1alpha1',
        kind: 'Test',
        metadata: { name: 'signed-images' },
        policies: ['policy.yaml'],
        resources: ['resources.yaml'],
        results: [
          { isImageValidatingPolicy: true, policy: 'signed', kind: 'Pod', resources: ['bad'], result: 'fail' },
          { isImageValidatingPolicy: true, policy: 'signed', kind: 'Pod', resources: ['good'], result: 'pass' },
        ],
      }),
      'policy.yaml': yaml({
        apiVersion: 'policies.kyverno.io/v1',
        kind: 'ImageValidatingPolicy',
        metadata: { name: 'signed' },
        spec: {
          validationConfigurations: { verifyDigest: false },
          matchConstraints: {
            resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
          },
          matchImageReferences: [{ glob: `${registry.host}/*` }],
          credentials: { allowInsecureRegistry: true },
          attestors: [{ name: 'notary', notary: { certs: { value: root.certPem } } }],
          attestations: [{ name: 'sbom', referrer: { type: SBOM } }],
          validations: [
            {
              expression: 'images.containers.all(i, verifyImageSignatures(i, [attestors.notary]) > 0)',
              message: 'unsigned image',
            },
            {
              expression:
                "images.containers.all(i, verifyAttestationSignatures(i, attestations.sbom, [attestors.notary]) > 0 && extractPayload(i, attestations.sbom).bomFormat == 'CycloneDX')",
              message: 'no CycloneDX SBOM',
            },
          ],
        },
      }),
      'resources.yaml': [yaml(pod('bad', `${repo}:unsigned`)), yaml(pod('good', `${repo}:signed`))].join('---\n'),
    });
  });

  afterAll(async () => {
    vi.unstubAllEnvs();
    await registry?.stop();
  });

  it('verifies through the CLI registry client when asked, with the egress guard opened for loopback only by setting', async () => {
    vi.stubEnv('EDICT_REGISTRY_ALLOWED_ADDRESSES', '127.0.0.1');
    vi.stubEnv('EDICT_INSECURE_REGISTRIES', '127.0.0.1');
    vi.stubEnv('DOCKER_CONFIG', dir);
    const { out, code } = await cli(['test', dir, '--registry', '--detailed-results']);
    expect(out).toContain('Test Summary: 2 tests passed and 0 tests failed');
    expect(code).toBe(0);
  });

  it('applies the policy with --registry as kyverno apply does', async () => {
    vi.stubEnv('EDICT_REGISTRY_ALLOWED_ADDRESSES', '127.0.0.1');
    vi.stubEnv('EDICT_INSECURE_REGISTRIES', '127.0.0.1');
    vi.stubEnv('DOCKER_CONFIG', dir);
    const { out, err, code } = await cli([
      'apply',
      join(dir, 'policy.yaml'),
      '-r',
      join(dir, 'resources.yaml'),
      '--registry',
    ]);
    expect(out + err).toContain('pass: 1, fail: 1, warn: 0, error: 0, skip: 0');
    expect(code).toBe(1);
  });

  it('keeps loopback blocked by default: the verification errors, never passes', async () => {
    vi.stubEnv('EDICT_REGISTRY_ALLOWED_ADDRESSES', '');
    const { out, code } = await cli(['test', dir, '--registry', '--detailed-results']);
    expect(out).toContain('Test Summary: 0 tests passed and 2 tests failed');
    expect(code).toBe(1);
  });

  it('reads no registry without --registry', async () => {
    const { out, code } = await cli(['test', dir, '--detailed-results']);
    expect(out).toContain('image verification is not configured');
    expect(code).toBe(1);
  });

  it('builds the same access outside the CLI', () => {
    const access = cliRegistry();
    expect(typeof access.ports.oci({}).resolve).toBe('function');
    access.close();
  });
});
