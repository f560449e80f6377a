import { afterEach, describe, expect, it } from 'vitest';
import { FakeRegistry, pushTestImage, registryClientForTests, type FakeRegistryOptions } from '@edict/registry/testing';
import { dockerConfigFromSecret } from '../auth/docker-config';
import { MEDIA_TYPES } from '../client/manifest';
import { RegistryAuthError } from '../registry-errors';
import { fallbackTag } from './oci-registry-client';
import type { OciAccess, OciClient } from './oci-types';

const registries: FakeRegistry[] = [];
const clients: Array<{ close(): void }> = [];

afterEach(async () => {
  clients.splice(0).forEach((client) => client.close());
  await Promise.all(registries.splice(0).map((registry) => registry.close()));
});

async function setup(options: FakeRegistryOptions = {}, access: (host: string) => OciAccess = () => ({})) {
  const registry = await FakeRegistry.start(options);
  registries.push(registry);
  const client = registryClientForTests();
  clients.push(client);
  return { registry, oci: client.oci(access(registry.host)), repo: `${registry.host}/team/app` };
}

const SIGNATURE = 'application/vnd.dev.edict.test-signature';
const SBOM = 'application/vnd.dev.edict.test-sbom';

async function artifact(oci: OciClient, repo: string, text: string, artifactType = SIGNATURE) {
  const empty = await oci.pushBlob(repo, Buffer.from('{}'));
  const payload = await oci.pushBlob(repo, Buffer.from(text));
  return {
    schemaVersion: 2,
    mediaType: MEDIA_TYPES.ociManifest,
    artifactType,
    config: { mediaType: 'application/vnd.oci.empty.v1+json', digest: empty.digest, size: empty.size },
    layers: [{ mediaType: 'text/plain', digest: payload.digest, size: payload.size }],
  };
}

function pullSecret(registry: string, username: string, password: string) {
  const config = { auths: { [registry]: { auth: Buffer.from(`${username}:${password}`).toString('base64') } } };
  return dockerConfigFromSecret({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'regcred', namespace: 'kyverno' },
    data: { '.dockerconfigjson': Buffer.from(JSON.stringify(config)).toString('base64') },
  });
}

describe('OciClient with the referrers API', () => {
  it('lists referrers from the API (no fallback tag), following pages and filtering by artifactType', async () => {
    const { registry, oci, repo } = await setup({ referrersApi: true, referrersPageSize: 2 });
    const image = await pushTestImage(oci, repo, 'v1');
    const pushed = [];
    for (const [text, type] of [
      ['a', SIGNATURE],
      ['b', SBOM],
      ['c', SIGNATURE],
    ] as const) {
      pushed.push(
        await oci.pushReferrer(repo, image.digest, await artifact(oci, repo, text, type), MEDIA_TYPES.ociManifest),
      );
    }
    // The registry indexed the subjects itself (OCI-Subject): no fallback tag was written.
    expect(registry.requests.some((request) => request.path.includes(fallbackTag(image.digest)))).toBe(false);

    const all = await oci.listReferrers(repo, image.digest);
    expect(all.map((entry) => entry.digest).sort()).toEqual(pushed.map((entry) => entry.digest).sort());
    expect(registry.requests.filter((request) => request.path.startsWith('/v2/team/app/referrers/'))).toHaveLength(2);

    const signatures = await oci.listReferrers(repo, image.digest, SIGNATURE);
    expect(signatures.map((entry) => entry.artifactType)).toEqual([SIGNATURE, SIGNATURE]);
    expect(registry.requests.at(-1)?.path).toContain(`artifactType=${encodeURIComponent(SIGNATURE)}`);
  });
});

describe('OciClient with the fallback tag schema', () => {
  it('fills in the subject of a referrer from the registry and writes the fallback index', async () => {
    const { oci, repo } = await setup();
    const image = await pushTestImage(oci, repo, 'v1');
    const descriptor = await oci.pushReferrer(
      repo,
      image.digest,
      await artifact(oci, repo, 'sig'),
      MEDIA_TYPES.ociManifest,
    );
    const referrer = await oci.getManifest(repo, descriptor.digest);
    expect(referrer?.json.subject).toEqual({
      mediaType: MEDIA_TYPES.ociManifest,
      digest: image.digest,
      size: (await oci.resolve(repo, image.digest))?.size,
    });
    const index = await oci.getManifest(repo, fallbackTag(image.digest), [MEDIA_TYPES.ociIndex]);
    expect(index?.json).toEqual({
      schemaVersion: 2,
      mediaType: MEDIA_TYPES.ociIndex,
      manifests: [
        {
          mediaType: MEDIA_TYPES.ociManifest,
          digest: descriptor.digest,
          size: descriptor.size,
          artifactType: SIGNATURE,
        },
      ],
    });
    expect(await oci.listReferrers(repo, image.digest, SBOM)).toEqual([]);
  });

  it('refuses a referrer whose subject points elsewhere, or a subject that is not there', async () => {
    const { oci, repo } = await setup();
    const image = await pushTestImage(oci, repo, 'v1');
    const other = `sha256:${'1'.repeat(64)}`;
    const manifest = {
      ...(await artifact(oci, repo, 'x')),
      subject: { mediaType: MEDIA_TYPES.ociManifest, digest: other, size: 1 },
    };
    await expect(oci.pushReferrer(repo, image.digest, manifest, MEDIA_TYPES.ociManifest)).rejects.toThrow(
      `the referrer's subject does not point at ${image.digest}`,
    );
    await expect(
      oci.pushReferrer(repo, other, await artifact(oci, repo, 'y'), MEDIA_TYPES.ociManifest),
    ).rejects.toThrow(`the subject ${other} is not in ${repo}`);
  });

  it('reports a malformed referrers index naming the entry', async () => {
    const { registry, oci, repo } = await setup();
    const image = await pushTestImage(oci, repo, 'v1');
    const index = {
      schemaVersion: 2,
      mediaType: MEDIA_TYPES.ociIndex,
      manifests: [{ mediaType: MEDIA_TYPES.ociManifest, digest: 'sha256:nope', size: 1 }],
    };
    registry.putManifest('team/app', JSON.stringify(index), MEDIA_TYPES.ociIndex, fallbackTag(image.digest));
    await expect(oci.listReferrers(repo, image.digest)).rejects.toThrow(
      /the referrers index entry 0 has an invalid digest "sha256:nope"/,
    );
  });
});

describe('OciClient reads', () => {
  it('verifies manifest and blob digests', async () => {
    const { registry, oci, repo } = await setup();
    const pushed = registry.pushImage('team/app', 'v1', { config: { os: 'linux', architecture: 'amd64' } });
    registry.tamperManifest(
      'team/app',
      pushed.manifestDigest,
      '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json"}',
    );
    await expect(oci.getManifest(repo, pushed.manifestDigest)).rejects.toThrow(
      `digest mismatch: asked for ${pushed.manifestDigest}`,
    );
    registry.tamperBlob(pushed.configDigest, '{"os":"evil"}');
    await expect(oci.getBlob(repo, pushed.configDigest)).rejects.toThrow(
      `digest mismatch: the blob ${pushed.configDigest} has digest`,
    );
  });

  it('resolves by HEAD without reading the manifest', async () => {
    const { registry, oci, repo } = await setup();
    const pushed = registry.pushImage('team/app', 'v1', { config: { os: 'linux', architecture: 'amd64' } });
    expect(await oci.resolve(repo, 'v1')).toEqual({
      mediaType: MEDIA_TYPES.ociManifest,
      digest: pushed.manifestDigest,
      size: Buffer.byteLength(JSON.stringify(pushed.manifest)),
    });
    expect(registry.requests.map((request) => request.method)).toEqual(['HEAD']);
  });

  it('names bad input: a repository with a tag, a bad reference, a blob by tag, a bad artifactType', async () => {
    const { oci, repo } = await setup();
    await expect(oci.getManifest(`${repo}:v1`, 'v1')).rejects.toThrow(
      'expected registry/repository, without a tag or digest',
    );
    await expect(oci.getManifest(repo, 'bad tag!')).rejects.toThrow('invalid tag or digest "bad tag!"');
    await expect(oci.getBlob(repo, 'latest')).rejects.toThrow('a blob is read by digest, got "latest"');
    await expect(oci.listReferrers(repo, `sha256:${'a'.repeat(64)}`, 'not a type')).rejects.toThrow(
      'invalid artifactType',
    );
    await expect(oci.getBlob(repo, `sha256:${'a'.repeat(64)}`, 0)).rejects.toThrow(
      'maxBytes must be a positive integer',
    );
    await expect(
      oci.pushManifest(repo, `sha256:${'a'.repeat(64)}`, { schemaVersion: 2 }, MEDIA_TYPES.ociManifest),
    ).rejects.toThrow(/digest mismatch: pushing to sha256:a+ content whose digest is sha256:/);
  });
});

describe('OciClient credentials', () => {
  it('pushes and reads with a bearer token, asking for push scope on writes', async () => {
    const { registry, oci, repo } = await setup(
      { auth: { type: 'bearer', username: 'ci', password: 's3cret' } },
      (host) => ({ dockerConfigs: [pullSecret(host, 'ci', 's3cret')] }),
    );
    const image = await pushTestImage(oci, repo, 'v1', { seed: 'auth' });
    expect((await oci.getManifest(repo, 'v1'))?.digest).toBe(image.digest);
    const tokenRequests = registry.requests.filter((request) => request.path.startsWith('/token'));
    // The challenge's two scopes (pull and push) went to the token endpoint as two scope parameters.
    const scopes = tokenRequests.map((request) => new URL(request.path, 'http://x').searchParams.getAll('scope'));
    expect(scopes).toContainEqual(['repository:team/app:pull', 'repository:team/app:push']);
  });

  it('reuses a token across clients with the same credentials, never across credentials', async () => {
    const registry = await FakeRegistry.start({ auth: { type: 'bearer', username: 'ci', password: 's3cret' } });
    registries.push(registry);
    registry.pushImage('team/app', 'v1', { config: { os: 'linux', architecture: 'amd64' } });
    const client = registryClientForTests();
    clients.push(client);
    const repo = `${registry.host}/team/app`;
    const access = () => ({ dockerConfigs: [pullSecret(registry.host, 'ci', 's3cret')] });
    const tokens = () => registry.requests.filter((request) => request.path.startsWith('/token')).length;

    expect(await client.oci(access()).resolve(repo, 'v1')).toBeDefined();
    expect(await client.oci(access()).resolve(repo, 'v1')).toBeDefined();
    expect(tokens()).toBe(1);
    const wrong = client.oci({ dockerConfigs: [pullSecret(registry.host, 'ci', 'wrong')] });
    await expect(wrong.resolve(repo, 'v1')).rejects.toBeInstanceOf(RegistryAuthError);
    await expect(client.oci().resolve(repo, 'v1')).rejects.toBeInstanceOf(RegistryAuthError);
    // The wrong password and anonymous access each asked the token endpoint for themselves.
    expect(tokens()).toBe(3);
  });

  it('fails with RegistryAuthError without credentials', async () => {
    const { oci, repo } = await setup({ auth: { type: 'basic', username: 'ci', password: 's3cret' } });
    await expect(oci.getManifest(repo, 'v1')).rejects.toBeInstanceOf(RegistryAuthError);
    await expect(oci.pushBlob(repo, Buffer.from('x'))).rejects.toThrow(/requires credentials \(Basic\)/);
  });

  it('refuses an upload location on another host', async () => {
    const { oci, repo } = await setup({ uploadOrigin: 'http://169.254.169.254' });
    await expect(oci.pushBlob(repo, Buffer.from('moved'))).rejects.toThrow(
      'the upload location "http://169.254.169.254/v2/team/app/blobs/uploads/',
    );
  });
});
