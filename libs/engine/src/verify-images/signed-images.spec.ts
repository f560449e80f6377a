import { beforeAll, describe, expect, it } from 'vitest';
import type { JsonValue, KubeObject } from '@edict/foundation';
import { VerificationCache } from '@edict/image-verify';
import {
  InMemoryOci,
  createTestCa,
  notationAttest,
  notationSign,
  pushImage,
  type TestCa,
  type TestCertificate,
} from '@edict/image-verify/testing';
import { Engine } from '../engine/engine';
import type { ContextLoaders } from '../core/loaders';
import type { Policy, Rule } from '../policy/types';
import { applyImagePatches } from './apply-patches';
import { IMAGE_VERIFY_ANNOTATION } from './annotation';

// Real signatures (notation JWS envelopes as OCI referrers) verified through image-verify, with the
// registry in memory: what the engine decides from verified and unverified images.
const REPO = 'registry.local/team/app';
const SBOM = 'application/vnd.cyclonedx+json';

let root: TestCa;
let leaf: TestCertificate;
let stranger: TestCa;

beforeAll(async () => {
  root = await createTestCa();
  leaf = await root.issue({ commonName: 'release signer' });
  stranger = await createTestCa({ commonName: 'someone else' });
});

async function signedRegistry(): Promise<{ oci: InMemoryOci; signed: string; unsigned: string }> {
  const oci = new InMemoryOci();
  const signed = (await pushImage(oci, REPO, 'signed')).digest;
  const unsigned = (await pushImage(oci, REPO, 'unsigned')).digest;
  await notationSign(oci, `${REPO}:signed`, { keyPem: leaf.keyPem, certChainPem: leaf.certPem + root.certPem });
  await notationAttest(
    oci,
    `${REPO}:signed`,
    SBOM,
    { bomFormat: 'CycloneDX', components: [{ name: 'openssl' }] },
    {
      keyPem: leaf.keyPem,
      certChainPem: leaf.certPem + root.certPem,
    },
  );
  return { oci, signed, unsigned };
}

const notary = (certs: string) => ({ certificates: { cert: certs } });

function policy(entry: Record<string, JsonValue>, failureAction = 'Enforce'): Policy {
  const rule: Rule = {
    name: 'notary',
    match: { any: [{ resources: { kinds: ['Pod'] } }] },
    verifyImages: [{ type: 'Notary', imageReferences: [`${REPO}*`], ...entry }],
  };
  return {
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name: 'signed-images' },
    spec: { validationFailureAction: failureAction as 'Enforce', rules: [rule] },
  };
}

const pod = (image: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'shop' },
  spec: { containers: [{ name: 'app', image }] },
});

function engineFor(oci: InMemoryOci, cache?: VerificationCache): Engine {
  const loaders: ContextLoaders = {
    configMap: () => undefined,
    apiCall: () => undefined,
    globalReference: () => undefined,
    imageRegistry: () => undefined,
    imageVerification: { oci: () => oci, cache },
  };
  return new Engine({ loaders });
}

describe('verifyImages with signed images', () => {
  it('admits a signed image: pass, digest patched in, annotation written; the validating side then passes', async () => {
    const { oci, signed } = await signedRegistry();
    const engine = engineFor(oci);
    const compiled = engine.compile(policy({ attestors: [{ entries: [notary(root.certPem)] }] }));
    const resource = pod(`${REPO}:signed`);
    const response = await engine.verifyImages(compiled, { operation: 'CREATE', resource });
    expect(response.rules).toMatchObject([
      {
        type: 'ImageVerify',
        status: 'pass',
        message: `verified image signatures for ${REPO}:signed`,
        failureAction: 'Enforce',
      },
    ]);
    expect(response.patches).toEqual([
      { op: 'replace', path: '/spec/containers/0/image', value: `${REPO}:signed@${signed}` },
    ]);
    const { resource: patched, patches } = applyImagePatches(resource, [response]);
    expect(patches[0]).toEqual({ op: 'add', path: '/metadata/annotations', value: {} });
    expect(patched.metadata.annotations).toEqual({
      [IMAGE_VERIFY_ANNOTATION]: JSON.stringify({ [`${REPO}@${signed}`]: 'pass' }),
    });
    expect((patched as unknown as { spec: { containers: { image: string }[] } }).spec.containers[0]!.image).toBe(
      `${REPO}:signed@${signed}`,
    );
    const validated = await engine.validate(compiled, { operation: 'CREATE', resource: patched });
    expect(validated.rules).toMatchObject([{ status: 'pass', message: 'image verified' }]);
  });

  it('fails an unsigned image and one signed by another authority, recording fail', async () => {
    const { oci, unsigned } = await signedRegistry();
    const engine = engineFor(oci);
    const compiled = engine.compile(policy({ mutateDigest: false, attestors: [{ entries: [notary(root.certPem)] }] }));
    const response = await engine.verifyImages(compiled, {
      operation: 'CREATE',
      resource: pod(`${REPO}@${unsigned}`),
    });
    expect(response.rules).toMatchObject([{ status: 'fail' }]);
    expect(response.rules[0]!.message).toMatch(
      new RegExp(`^failed to verify image ${REPO}@${unsigned}: \\.attestors\\[0\\]\\.entries\\[0\\]: `),
    );
    expect(response.verifiedImages.value()).toBe(JSON.stringify({ [`${REPO}@${unsigned}`]: 'fail' }));

    const wrong = engine.compile(policy({ mutateDigest: false, attestors: [{ entries: [notary(stranger.certPem)] }] }));
    const other = await engine.verifyImages(wrong, { operation: 'CREATE', resource: pod(`${REPO}:signed`) });
    expect(other.rules).toMatchObject([{ status: 'fail' }]);
  });

  it('answers error when the registry is down, so the failure policy decides', async () => {
    const { oci } = await signedRegistry();
    oci.failing = new Error('connect ECONNREFUSED 127.0.0.1:5000');
    const engine = engineFor(oci);
    const response = await engine.verifyImages(
      engine.compile(policy({ mutateDigest: false, attestors: [{ entries: [notary(root.certPem)] }] })),
      { operation: 'CREATE', resource: pod(`${REPO}:signed`) },
    );
    expect(response.rules).toMatchObject([
      {
        status: 'error',
        message: expect.stringContaining(`failed to verify image ${REPO}:signed: .attestors[0].entries[0]: `),
      },
    ]);
  });

  it('counts entries: count 1 of two passes with one trusted authority, no count needs both', async () => {
    const { oci } = await signedRegistry();
    const engine = engineFor(oci);
    const entries = [notary(stranger.certPem), notary(root.certPem)];
    const anyOne = await engine.verifyImages(
      engine.compile(policy({ mutateDigest: false, attestors: [{ count: 1, entries }] })),
      { operation: 'CREATE', resource: pod(`${REPO}:signed`) },
    );
    expect(anyOne.rules).toMatchObject([{ status: 'pass' }]);
    const all = await engine.verifyImages(engine.compile(policy({ mutateDigest: false, attestors: [{ entries }] })), {
      operation: 'CREATE',
      resource: pod(`${REPO}:signed`),
    });
    expect(all.rules).toMatchObject([{ status: 'fail' }]);
    expect(all.rules[0]!.message).toContain('.attestors[0].entries[0]: ');
    // A nested attestor set counts as one entry.
    const nested = await engine.verifyImages(
      engine.compile(policy({ mutateDigest: false, attestors: [{ entries: [{ attestor: { count: 1, entries } }] }] })),
      { operation: 'CREATE', resource: pod(`${REPO}:signed`) },
    );
    expect(nested.rules).toMatchObject([{ status: 'pass' }]);
  });

  it('checks attestation conditions on each statement’s predicate', async () => {
    const { oci } = await signedRegistry();
    const engine = engineFor(oci);
    const attestation = (value: string) => ({
      type: SBOM,
      attestors: [{ entries: [notary(root.certPem)] }],
      conditions: [{ all: [{ key: '{{ bomFormat }}', operator: 'Equals', value }] }],
    });
    const passed = await engine.verifyImages(
      engine.compile(policy({ mutateDigest: false, attestations: [attestation('CycloneDX')] })),
      { operation: 'CREATE', resource: pod(`${REPO}:signed`) },
    );
    expect(passed.rules).toMatchObject([
      { status: 'pass', message: expect.stringContaining('verified image attestations for') },
    ]);
    const failed = await engine.verifyImages(
      engine.compile(policy({ mutateDigest: false, attestations: [attestation('SPDX')] })),
      { operation: 'CREATE', resource: pod(`${REPO}:signed`) },
    );
    expect(failed.rules).toMatchObject([{ status: 'fail' }]);
    expect(failed.rules[0]!.message).toContain(
      'image attestations verification failed, verifiedCount: 0, requiredCount: 1, error: .attestations[0].attestors[0].entries[0]: attestation checks failed for',
    );
    const missing = await engine.verifyImages(
      engine.compile(
        policy({ mutateDigest: false, attestations: [{ ...attestation('CycloneDX'), type: 'application/spdx+json' }] }),
      ),
      { operation: 'CREATE', resource: pod(`${REPO}:signed`) },
    );
    expect(missing.rules).toMatchObject([{ status: 'fail' }]);
  });

  it('binds a named attestation’s predicate for the entry’s validate.deny', async () => {
    const { oci } = await signedRegistry();
    const engine = engineFor(oci);
    const entry = (format: string) => ({
      mutateDigest: false,
      attestations: [{ type: SBOM, name: 'sbom', attestors: [{ entries: [notary(root.certPem)] }] }],
      validate: {
        message: 'the SBOM is {{ sbom.bomFormat }}',
        deny: { conditions: { any: [{ key: '{{ sbom.bomFormat }}', operator: 'Equals', value: format }] } },
      },
    });
    const request = { operation: 'CREATE' as const, resource: pod(`${REPO}:signed`) };
    const allowed = await engine.verifyImages(engine.compile(policy(entry('SPDX'))), request);
    expect(allowed.rules).toMatchObject([
      { status: 'pass', message: 'verifyImages validation is passed in notary rule' },
    ]);
    const denied = await engine.verifyImages(engine.compile(policy(entry('CycloneDX'))), request);
    expect(denied.rules).toMatchObject([
      { status: 'fail', message: 'validation in verifyImages failed: the SBOM is CycloneDX' },
    ]);
  });

  it('answers from the verification cache when useCache holds, and reads the registry when it does not', async () => {
    const { oci } = await signedRegistry();
    const cache = new VerificationCache(10, 60_000);
    const engine = engineFor(oci, cache);
    const request = { operation: 'CREATE' as const, resource: pod(`${REPO}:signed`) };
    const cached = engine.compile(policy({ mutateDigest: false, attestors: [{ entries: [notary(root.certPem)] }] }));
    await engine.verifyImages(cached, request);
    const calls = oci.calls.length;
    expect((await engine.verifyImages(cached, request)).rules).toMatchObject([{ status: 'pass' }]);
    expect(oci.calls.length).toBe(calls);
    const uncached = engine.compile(
      policy({ mutateDigest: false, useCache: false, attestors: [{ entries: [notary(root.certPem)] }] }),
    );
    await engine.verifyImages(uncached, request);
    expect(oci.calls.length).toBeGreaterThan(calls);
  });
});
