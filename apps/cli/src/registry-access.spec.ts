// `edict test` and `edict apply` on verifyImages policies against a real registry: Debian's
// docker-registry on loopback, an image signed with a notation signature by the test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestCa, notationSign, pushImage, type OciWriter, type TestCa } from '@edict/image-verify/testing';
import { registryClientForTests, startLocalRegistry, type LocalRegistry } from '@edict/registry/testing';
import { testFile, writeTree, yaml } from '@edict/kyverno-test/testing';
import { buildProgram } from './program';
import { cliEngineFactory, cliImageVerification } from './registry-access';

let registry: LocalRegistry;
let root: TestCa;
let repo: string;
let signedDigest: string;
const client = registryClientForTests();

beforeAll(async () => {
  registry = await startLocalRegistry();
  repo = `${registry.host}/team/app`;
  root = await createTestCa();
  const leaf = await root.issue({ commonName: 'release signer' });
  const writer = client.oci({ allowInsecure: true }) as unknown as OciWriter;
  signedDigest = (await pushImage(writer, repo, 'signed')).digest;
  await pushImage(writer, repo, 'unsigned');
  await notationSign(writer, `${repo}:signed`, { keyPem: leaf.keyPem, certChainPem: leaf.certPem + root.certPem });
}, 60_000);

afterAll(async () => {
  client.close();
  await registry?.stop();
});

function policy() {
  return {
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name: 'signed-images' },
    spec: {
      validationFailureAction: 'Enforce',
      rules: [
        {
          name: 'notary',
          match: { any: [{ resources: { kinds: ['Pod'] } }] },
          verifyImages: [
            {
              type: 'Notary',
              imageReferences: [`${repo}*`],
              attestors: [{ entries: [{ certificates: { cert: root.certPem } }] }],
            },
          ],
        },
      ],
    },
  };
}

const pod = (name: string, image: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default' },
  spec: { containers: [{ name: 'app', image }] },
});

async function cli(args: string[]) {
  let out = '';
  let err = '';
  const io = { out: (t: string) => void (out += t), err: (t: string) => void (err += t) };
  const result = { code: 0 };
  const factory = cliEngineFactory(cliImageVerification({ EDICT_INSECURE_REGISTRIES: registry.host }));
  await buildProgram(io, result, factory).parseAsync(['node', 'edict', ...args]);
  return { out, err, code: result.code };
}

describe('the CLI verifies images through the registry', () => {
  it('edict test: a signed image passes, an unsigned one fails', async () => {
    const dir = writeTree({
      'policy.yaml': yaml(policy()),
      'resources.yaml': yaml(pod('signed', `${repo}:signed`), pod('unsigned', `${repo}:unsigned`)),
      'kyverno-test.yaml': yaml(
        testFile([
          { policy: 'signed-images', rule: 'notary', kind: 'Pod', resources: ['signed'], result: 'pass' },
          { policy: 'signed-images', rule: 'notary', kind: 'Pod', resources: ['unsigned'], result: 'fail' },
        ]),
      ),
    });
    const { out, err, code } = await cli(['test', dir]);
    expect(err).not.toContain('Error');
    expect(code).toBe(0);
    // Each pod answers twice: the verification (mutating side) and the digest/annotation check.
    expect(out).toContain('Test Summary: 4 tests passed and 0 tests failed');

    const wrong = writeTree({
      'policy.yaml': yaml(policy()),
      'resources.yaml': yaml(pod('unsigned', `${repo}:unsigned`)),
      'kyverno-test.yaml': yaml(
        testFile([{ policy: 'signed-images', rule: 'notary', kind: 'Pod', resources: ['unsigned'], result: 'pass' }]),
      ),
    });
    const refuted = await cli(['test', wrong]);
    expect(refuted.code).toBe(1);
  });

  it('edict apply: the signed image is reported as verified, the unsigned one as failed', async () => {
    const dir = writeTree({
      'policy.yaml': yaml(policy()),
      'resources.yaml': yaml(pod('signed', `${repo}:signed`), pod('unsigned', `${repo}:unsigned`)),
    });
    const { out, code } = await cli(['apply', `${dir}/policy.yaml`, '--resource', `${dir}/resources.yaml`]);
    // The signed pod comes out pinned to its digest and recorded as verified.
    expect(out).toContain(`image: ${repo}:signed@${signedDigest}`);
    expect(out).toContain(`kyverno.io/verify-images: '{"${repo}@${signedDigest}":"pass"}'`);
    expect(out).toContain(`failed to verify image ${repo}:unsigned`);
    expect(out).not.toContain(`failed to verify image ${repo}:signed`);
    expect(code).toBe(1);
  });
});
