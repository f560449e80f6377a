import { describe, expect, it } from 'vitest';
import type { JsonValue, KubeObject } from '@edict/foundation';
import { VerificationCache, type OciReader } from '@edict/image-verify';
import { InMemoryOci, generateKeyPair, pushImage } from '@edict/image-verify/testing';
import { Engine } from '../engine/engine';
import type { ContextLoaders, OciAccessRequest, ResourceLoader } from '../core/loaders';
import type { ResourceRequest } from '../core/types';
import type { Policy, Rule } from '../policy/types';
import { validatePolicy } from '../policy-validation';
import { checkRulesEdictRuns } from '../policy-validation/unsupported-rules';
import { IMAGE_VERIFY_ANNOTATION } from './annotation';

const REPO = 'registry.local/team/app';

function pod(image: string, annotations?: Record<string, string>): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'shop', ...(annotations ? { annotations } : {}) },
    spec: { containers: [{ name: 'app', image }] },
  };
}

function rule(entry: Record<string, JsonValue>): Rule {
  return {
    name: 'verify',
    match: { any: [{ resources: { kinds: ['Pod'] } }] },
    verifyImages: [{ imageReferences: ['registry.local/*'], ...entry }],
  };
}

function policy(rules: Rule[], kind: Policy['kind'] = 'ClusterPolicy'): Policy {
  return {
    apiVersion: 'kyverno.io/v1',
    kind,
    metadata: { name: 'images', ...(kind === 'Policy' ? { namespace: 'shop' } : {}) },
    spec: { validationFailureAction: 'Enforce', rules },
  };
}

const loaders = (oci: OciReader, seen: OciAccessRequest[] = []): ContextLoaders => ({
  configMap: () => undefined,
  apiCall: () => undefined,
  globalReference: () => undefined,
  imageRegistry: () => undefined,
  imageVerification: {
    oci: (access) => {
      seen.push(access);
      return oci;
    },
    cache: new VerificationCache(100, 60_000),
  },
});

const keys = {
  publicKeys: generateKeyPair('ecdsa-p256').publicKeyPem,
  rekor: { url: 'https://rekor.invalid', ignoreTlog: true },
  ctlog: { ignoreSCT: true },
};

async function registryWithImage(): Promise<{ oci: InMemoryOci; digest: string }> {
  const oci = new InMemoryOci();
  const { digest } = await pushImage(oci, REPO, 'v1');
  return { oci, digest };
}

describe('Engine.verifyImages', () => {
  it('answers error when no registry access is configured, never pass', async () => {
    const engine = new Engine();
    const response = await engine.verifyImages(
      engine.compile(policy([rule({ attestors: [{ entries: [{ keys }] }] })])),
      { operation: 'CREATE', resource: pod(`${REPO}:v1`) },
    );
    expect(response.rules).toMatchObject([
      {
        type: 'ImageVerify',
        status: 'error',
        message: expect.stringContaining('image verification is not configured'),
      },
    ]);
    expect(response.patches).toEqual([]);
  });

  it('gives no response for images no entry names', async () => {
    const { oci } = await registryWithImage();
    const engine = new Engine({ loaders: loaders(oci) });
    const response = await engine.verifyImages(
      engine.compile(policy([rule({ attestors: [{ entries: [{ keys }] }] })])),
      { operation: 'CREATE', resource: pod('docker.io/library/nginx:1.27') },
    );
    expect(response.rules).toEqual([]);
    expect(response.verifiedImages.empty).toBe(true);
  });

  it('skips images listed in skipImageReferences and records them as skip', async () => {
    const { oci } = await registryWithImage();
    const engine = new Engine({ loaders: loaders(oci) });
    const response = await engine.verifyImages(
      engine.compile(
        policy([
          rule({ skipImageReferences: [`${REPO}:*`], mutateDigest: false, attestors: [{ entries: [{ keys }] }] }),
        ]),
      ),
      { operation: 'CREATE', resource: pod(`${REPO}:v1`) },
    );
    expect(response.rules).toMatchObject([
      { status: 'skip', message: `skipping image reference image ${REPO}:v1, policy images ruleName verify` },
    ]);
    expect(response.verifiedImages.value()).toBe(JSON.stringify({ [`${REPO}:v1`]: 'skip' }));
    expect(response.patches).toEqual([]);
  });

  // Kyverno's ImageVerifier.Verify runs handleMutateDigest whatever verifyImage answered, a skip
  // included: a skipped image is not verified, but its tag is still pinned to the digest.
  it('still pins the digest of an image skipImageReferences names under mutateDigest, as Kyverno does', async () => {
    const { oci, digest } = await registryWithImage();
    const engine = new Engine({ loaders: loaders(oci) });
    const response = await engine.verifyImages(
      engine.compile(policy([rule({ skipImageReferences: [`${REPO}:*`], attestors: [{ entries: [{ keys }] }] })])),
      { operation: 'CREATE', resource: pod(`${REPO}:v1`) },
    );
    expect(response.rules).toMatchObject([{ status: 'skip' }]);
    expect(response.patches).toEqual([
      { op: 'replace', path: '/spec/containers/0/image', value: `${REPO}:v1@${digest}` },
    ]);
    expect(oci.calls).toContain(`resolve ${REPO} v1`);
  });

  it('patches the digest a mutateDigest entry resolves, keeping the tag as Kyverno writes it', async () => {
    const { oci, digest } = await registryWithImage();
    const engine = new Engine({ loaders: loaders(oci) });
    // No attestors: nothing to verify, the tag is only pinned.
    const response = await engine.verifyImages(engine.compile(policy([rule({ required: false })])), {
      operation: 'CREATE',
      resource: pod(`${REPO}:v1`),
    });
    expect(response.patches).toEqual([
      { op: 'replace', path: '/spec/containers/0/image', value: `${REPO}:v1@${digest}` },
    ]);
    expect(response.rules).toMatchObject([{ status: 'pass', message: 'mutated image digest' }]);
    expect(response.verifiedImages.empty).toBe(true);
  });

  it('fails closed on KMS keys with a clear message', async () => {
    const { oci } = await registryWithImage();
    const engine = new Engine({ loaders: loaders(oci) });
    const response = await engine.verifyImages(
      engine.compile(
        policy([rule({ mutateDigest: false, attestors: [{ entries: [{ keys: { kms: 'awskms:///alias/k' } }] }] })]),
      ),
      { operation: 'CREATE', resource: pod(`${REPO}:v1`) },
    );
    expect(response.rules).toMatchObject([
      { status: 'error', message: expect.stringContaining('KMS keys (awskms:///alias/k) are not supported by Edict') },
    ]);
  });

  it('keeps a namespaced Policy to key Secrets of its own namespace', async () => {
    const { oci } = await registryWithImage();
    const read: string[] = [];
    const resources: ResourceLoader = {
      get: (_v, _k, namespace, name) => {
        read.push(`${namespace}/${name}`);
        return undefined;
      },
      list: () => [],
      namespaced: () => true,
    };
    const engine = new Engine({ loaders: loaders(oci), resources });
    const entry = {
      mutateDigest: false,
      attestors: [{ entries: [{ keys: { secret: { name: 'k', namespace: 'kyverno' } } }] }],
    };
    const response = await engine.verifyImages(engine.compile(policy([rule(entry)], 'Policy')), {
      operation: 'CREATE',
      resource: pod(`${REPO}:v1`),
    });
    expect(response.rules[0]).toMatchObject({
      status: 'error',
      message: expect.stringContaining("key secret k8s://kyverno/k is outside the policy's namespace shop"),
    });
    expect(read).toEqual([]);
  });

  it('passes the entry credentials to the registry access', async () => {
    const { oci } = await registryWithImage();
    const seen: OciAccessRequest[] = [];
    const engine = new Engine({ loaders: loaders(oci, seen) });
    await engine.verifyImages(
      engine.compile(
        policy([
          rule({ required: false, imageRegistryCredentials: { secrets: ['regcred'], allowInsecureRegistry: true } }),
        ]),
      ),
      { operation: 'CREATE', resource: pod(`${REPO}:v1`) },
    );
    expect(seen).toEqual([{ secrets: ['regcred'], providers: undefined, allowInsecure: true, namespace: 'shop' }]);
  });

  it('refuses a request that changes the recorded annotation on UPDATE', async () => {
    const { oci } = await registryWithImage();
    const engine = new Engine({ loaders: loaders(oci) });
    const old = pod(`${REPO}:v1`, { [IMAGE_VERIFY_ANNOTATION]: JSON.stringify({ [`${REPO}:v1`]: 'fail' }) });
    const forged = pod(`${REPO}:v2`, { [IMAGE_VERIFY_ANNOTATION]: JSON.stringify({ [`${REPO}:v1`]: 'pass' }) });
    const response = await engine.verifyImages(
      engine.compile(policy([rule({ attestors: [{ entries: [{ keys }] }] })])),
      { operation: 'UPDATE', resource: forged, oldResource: old },
    );
    expect(response.rules).toMatchObject([
      { status: 'fail', message: 'kyverno.io/verify-images annotation cannot be changed' },
    ]);
  });

  it('records an image an UPDATE left unchanged as verified without checking it again', async () => {
    const oci = new InMemoryOci();
    oci.failing = new Error('must not be called');
    const engine = new Engine({ loaders: loaders(oci) });
    const image = `${REPO}@sha256:${'a'.repeat(64)}`;
    const before = pod(image);
    const after = { ...pod(image), metadata: { ...pod(image).metadata, labels: { changed: 'yes' } } };
    const response = await engine.verifyImages(
      engine.compile(policy([rule({ attestors: [{ entries: [{ keys }] }] })])),
      { operation: 'UPDATE', resource: after, oldResource: before },
    );
    expect(response.rules).toEqual([]);
    expect(response.verifiedImages.value()).toBe(JSON.stringify({ [image]: 'pass' }));
    expect(oci.calls).toEqual([]);
  });
});

describe('Engine.validate on verifyImages rules (the validating side)', () => {
  const signedRule = rule({ attestors: [{ entries: [{ keys }] }] });
  const digestImage = `${REPO}@sha256:${'b'.repeat(64)}`;

  async function validate(resource: KubeObject, request: Partial<ResourceRequest> = {}) {
    const engine = new Engine();
    return engine.validate(engine.compile(policy([signedRule])), { operation: 'CREATE', resource, ...request });
  }

  it('fails an image without a digest when verifyDigest holds', async () => {
    const response = await validate(pod(`${REPO}:v1`));
    expect(response.rules).toMatchObject([
      { type: 'ImageVerify', status: 'fail', message: `missing digest for ${REPO}:v1`, failureAction: 'Enforce' },
    ]);
  });

  it('fails an image the annotation does not record as verified', async () => {
    const none = await validate(pod(digestImage));
    expect(none.rules[0]).toMatchObject({ status: 'fail', message: `unverified image ${digestImage}` });
    const other = await validate(pod(digestImage, { team: 'a' }));
    expect(other.rules[0]).toMatchObject({ status: 'fail', message: 'image is not verified' });
    const failed = await validate(
      pod(digestImage, { [IMAGE_VERIFY_ANNOTATION]: JSON.stringify({ [digestImage]: 'fail' }) }),
    );
    expect(failed.rules[0]).toMatchObject({ status: 'fail', message: `unverified image ${digestImage}` });
    const broken = await validate(pod(digestImage, { [IMAGE_VERIFY_ANNOTATION]: 'not json' }));
    expect(broken.rules[0]).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('failed to parse image metadata'),
    });
  });

  it('passes an image recorded as verified, and reports skipped ones', async () => {
    const passed = await validate(
      pod(digestImage, { [IMAGE_VERIFY_ANNOTATION]: JSON.stringify({ [digestImage]: 'pass' }) }),
    );
    expect(passed.rules[0]).toMatchObject({ status: 'pass', message: 'image verified' });
    const skipped = await validate(
      pod(digestImage, { [IMAGE_VERIFY_ANNOTATION]: JSON.stringify({ [digestImage]: 'skip' }) }),
    );
    expect(skipped.rules[0]).toMatchObject({
      status: 'skip',
      message: `image skipped, skipped images: ${digestImage}`,
    });
  });

  it('leaves rules without verifyDigest and required off the validating side', async () => {
    const engine = new Engine();
    const compiled = engine.compile(
      policy([rule({ verifyDigest: false, required: false, attestors: [{ entries: [{ keys }] }] })]),
    );
    expect(compiled.validateRules).toEqual([]);
    // The rule and its autogen copies for Pod controllers.
    expect(compiled.imageVerifyRules.map((r) => r.name)).toEqual([
      'verify',
      'autogen-verify',
      'autogen-cronjob-verify',
    ]);
  });
});

describe('verifyImages policy checks', () => {
  it('reports Kyverno’s ImageVerification.Validate problems with their paths', () => {
    const bad = policy([
      rule({
        imageReferences: [],
        attestors: [
          { count: 3, entries: [{ keys: {} }, { certificates: {} }] },
          { entries: [{ keyless: { subject: 'x' } }, { keys, keyless: { roots: 'r' } }] },
        ],
      }),
    ]);
    bad.spec.validationFailureAction = 'Audit';
    const messages = validatePolicy(bad).map((d) => `${d.path}: ${d.message}`);
    const at = 'spec.rules[0].verifyImages[0]';
    expect(messages).toEqual([
      `${at}.mutateDigest: mutateDigest must be set to false for ‘Audit’ failure action`,
      `${at}: An image reference is required`,
      `${at}.attestors[0]: Count cannot exceed length of entries`,
      `${at}.attestors[0].entries[0].keys: A public key, kms key or secret is required`,
      `${at}.attestors[0].entries[1].certificates: cert or certChain required`,
      `${at}.attestors[1].entries[0].keyless: Either Rekor URL or roots are required`,
      `${at}.attestors[1].entries[1]: keys, certificates, keyless, or a nested attestor is required`,
    ]);
  });

  it('accepts a complete Enforce policy and refuses at install only what Edict lacks (KMS)', () => {
    const good = policy([rule({ attestors: [{ entries: [{ keys }] }] })]);
    expect(validatePolicy(good).filter((d) => d.severity === 'error')).toEqual([]);
    expect(checkRulesEdictRuns(good)).toEqual([]);
    const kms = policy([rule({ attestors: [{ entries: [{ keys: { kms: 'gcpkms://k' } }] }] })]);
    expect(checkRulesEdictRuns(kms).map((d) => d.message)).toEqual([
      expect.stringContaining('KMS keys are not supported by Edict'),
    ]);
  });
});

describe('readImageVerification', () => {
  it('applies the CRD defaults and converts the deprecated fields as Kyverno’s Convert does', async () => {
    const { readImageVerification } = await import('./spec');
    const defaults = readImageVerification({ imageReferences: ['*'] });
    expect(defaults).toMatchObject({
      type: 'Cosign',
      mutateDigest: true,
      verifyDigest: true,
      required: true,
      useCache: true,
    });
    const keyed = readImageVerification({ image: 'ghcr.io/x/*', key: 'PEM', annotations: { team: 'a' } });
    expect(keyed.imageReferences).toEqual(['ghcr.io/x/*']);
    expect(keyed.attestors).toEqual([
      { entries: [{ annotations: { team: 'a' }, keys: { publicKeys: 'PEM' }, keyless: undefined }] },
    ]);
    const keyless = readImageVerification({
      image: 'ghcr.io/x/*',
      issuer: 'https://issuer',
      subject: 'me',
      attestations: [{ predicateType: 'https://slsa.dev/provenance/v0.2' }],
    });
    expect(keyless.attestors).toEqual([]);
    expect(keyless.attestations).toMatchObject([
      {
        type: 'https://slsa.dev/provenance/v0.2',
        attestors: [{ entries: [{ keyless: { issuer: 'https://issuer', subject: 'me' } }] }],
      },
    ]);
  });
});
