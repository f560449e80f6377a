import { describe, expect, it } from 'vitest';
import type { JsonValue, KubeObject } from '@edict/foundation';
import { InMemoryOci, cosignAttest, cosignSign, generateKeyPair, pushImage } from '@edict/image-verify/testing';
import { Engine } from '../engine/engine';
import type { ContextLoaders } from '../core/loaders';
import type { Policy } from '../policy/types';

// Cosign key-signed images (cosign's `sha256-<hex>.sig` / `.att` layout) as Kyverno's keyed tests
// write their policies: public keys inline, Rekor and SCT checks off.
const REPO = 'registry.local/team/app';
const SLSA = 'https://slsa.dev/provenance/v0.2';

async function registry() {
  const oci = new InMemoryOci();
  const keys = generateKeyPair('ecdsa-p256');
  const other = generateKeyPair('ecdsa-p256');
  const signed = await pushImage(oci, REPO, 'signed');
  await pushImage(oci, REPO, 'unsigned');
  await cosignSign(oci, `${REPO}:signed`, keys.privateKeyPem);
  await cosignAttest(
    oci,
    `${REPO}:signed`,
    keys.privateKeyPem,
    { builder: { id: 'https://ci.example/builder' } },
    SLSA,
  );
  const loaders: ContextLoaders = {
    configMap: () => undefined,
    apiCall: () => undefined,
    globalReference: () => undefined,
    imageRegistry: () => undefined,
    imageVerification: { oci: () => oci },
  };
  return { engine: new Engine({ loaders }), keys, other, signed };
}

const keysEntry = (publicKeys: string) => ({
  keys: { publicKeys, rekor: { url: 'https://rekor.sigstore.dev', ignoreTlog: true }, ctlog: { ignoreSCT: true } },
});

function policy(entry: Record<string, JsonValue>): Policy {
  return {
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name: 'keyed' },
    spec: {
      validationFailureAction: 'Enforce',
      rules: [
        {
          name: 'keyed-rule',
          match: { any: [{ resources: { kinds: ['Pod'] } }] },
          verifyImages: [{ imageReferences: [`${REPO}:*`], ...entry }],
        },
      ],
    },
  };
}

const pod = (image: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'shop' },
  spec: { containers: [{ name: 'app', image }] },
});

describe('verifyImages with Cosign key signatures', () => {
  it('passes the signed image and fails the unsigned one and a wrong key', async () => {
    const { engine, keys, other, signed } = await registry();
    const good = engine.compile(policy({ attestors: [{ entries: [keysEntry(keys.publicKeyPem)] }] }));
    const passed = await engine.verifyImages(good, { operation: 'CREATE', resource: pod(`${REPO}:signed`) });
    expect(passed.rules).toMatchObject([{ status: 'pass', message: `verified image signatures for ${REPO}:signed` }]);
    expect(passed.patches).toEqual([
      { op: 'replace', path: '/spec/containers/0/image', value: `${REPO}:signed@${signed.digest}` },
    ]);
    const unsigned = await engine.verifyImages(good, { operation: 'CREATE', resource: pod(`${REPO}:unsigned`) });
    expect(unsigned.rules).toMatchObject([
      {
        status: 'fail',
        message: expect.stringContaining(`failed to verify image ${REPO}:unsigned: .attestors[0].entries[0].keys: `),
      },
    ]);
    const wrong = engine.compile(policy({ attestors: [{ entries: [keysEntry(other.publicKeyPem)] }] }));
    const refused = await engine.verifyImages(wrong, { operation: 'CREATE', resource: pod(`${REPO}:signed`) });
    expect(refused.rules).toMatchObject([{ status: 'fail' }]);
  });

  it('expands several keys in one publicKeys into entries that count separately', async () => {
    const { engine, keys, other } = await registry();
    const both = `${other.publicKeyPem.trim()}\n${keys.publicKeyPem.trim()}`;
    const anyOne = await engine.verifyImages(
      engine.compile(policy({ attestors: [{ count: 1, entries: [keysEntry(both)] }] })),
      { operation: 'CREATE', resource: pod(`${REPO}:signed`) },
    );
    expect(anyOne.rules).toMatchObject([{ status: 'pass' }]);
    const all = await engine.verifyImages(engine.compile(policy({ attestors: [{ entries: [keysEntry(both)] }] })), {
      operation: 'CREATE',
      resource: pod(`${REPO}:signed`),
    });
    expect(all.rules).toMatchObject([{ status: 'fail' }]);
  });

  it('checks in-toto attestation conditions against the predicate', async () => {
    const { engine, keys } = await registry();
    const attestation = (builder: string) => ({
      attestations: [
        {
          type: SLSA,
          attestors: [{ entries: [keysEntry(keys.publicKeyPem)] }],
          conditions: [{ all: [{ key: '{{ builder.id }}', operator: 'Equals', value: builder }] }],
        },
      ],
    });
    const request = { operation: 'CREATE' as const, resource: pod(`${REPO}:signed`) };
    const passed = await engine.verifyImages(
      engine.compile(policy(attestation('https://ci.example/builder'))),
      request,
    );
    expect(passed.rules).toMatchObject([{ status: 'pass' }]);
    const failed = await engine.verifyImages(engine.compile(policy(attestation('https://elsewhere'))), request);
    expect(failed.rules).toMatchObject([
      {
        status: 'fail',
        message: expect.stringContaining('image attestations verification failed, verifiedCount: 0, requiredCount: 1'),
      },
    ]);
  });
});
