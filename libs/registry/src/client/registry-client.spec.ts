import { afterEach, describe, expect, it } from 'vitest';
import { EgressClient, EgressRefusedError } from '@edict/egress';
import { FakeRegistry, type FakeRegistryOptions } from '@edict/registry/testing';
import { dockerConfigFromSecret, parseDockerConfigJson } from '../auth/docker-config';
import { ImageNotFoundError, RegistryAuthError, RegistryError } from '../registry-errors';
import { RegistryClient } from './registry-client';

const registries: FakeRegistry[] = [];
const egresses: EgressClient[] = [];

afterEach(async () => {
  egresses.splice(0).forEach((egress) => egress.close());
  await Promise.all(registries.splice(0).map((registry) => registry.close()));
});

async function fakeRegistry(options: FakeRegistryOptions = {}): Promise<FakeRegistry> {
  const registry = await FakeRegistry.start(options);
  registries.push(registry);
  return registry;
}

/** A client whose egress guard lets the test reach its loopback registry. */
function loopbackClient(options: ConstructorParameters<typeof RegistryClient>[1] = {}): RegistryClient {
  const egress = new EgressClient({ blockedCidrs: ['169.254.0.0/16'] });
  egresses.push(egress);
  return new RegistryClient(egress, options);
}

const insecure = { allowInsecure: true } as const;

function pullSecret(registry: string, username: string, password: string) {
  const config = { auths: { [registry]: { auth: Buffer.from(`${username}:${password}`).toString('base64') } } };
  return dockerConfigFromSecret({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'regcred', namespace: 'kyverno' },
    data: { '.dockerconfigjson': Buffer.from(JSON.stringify(config)).toString('base64') },
  });
}

const amd64Config = { architecture: 'amd64', os: 'linux', config: { User: '1000', Labels: { team: 'web' } } };

describe('RegistryClient.imageData', () => {
  it("returns Kyverno's image data for an OCI image by tag", async () => {
    const registry = await fakeRegistry();
    const pushed = registry.pushImage('team/app', 'v1', { config: amd64Config });
    const image = `${registry.host}/team/app:v1`;

    const data = await loopbackClient().imageData(image, insecure);

    expect(data).toEqual({
      configData: amd64Config,
      identifier: 'v1',
      image,
      manifest: pushed.manifest,
      registry: registry.host,
      repository: 'team/app',
      resolvedImage: `${registry.host}/team/app@${pushed.manifestDigest}`,
    });
    expect(Object.keys(data)).toEqual([...Object.keys(data)].sort());
    const manifestRequest = registry.requests.find((request) => request.path === '/v2/team/app/manifests/v1');
    expect(manifestRequest?.accept).toContain('application/vnd.oci.image.index.v1+json');
    expect(manifestRequest?.accept).toContain('application/vnd.docker.distribution.manifest.v2+json');
  });

  it('reads Docker v2 manifests and digest references', async () => {
    const registry = await fakeRegistry();
    const pushed = registry.pushImage('app', 'v2', { config: amd64Config, format: 'docker' });
    const image = `${registry.host}/app@${pushed.manifestDigest}`;
    const data = await loopbackClient().imageData(image, insecure);
    expect(data.identifier).toBe(pushed.manifestDigest);
    expect(data.resolvedImage).toBe(`${registry.host}/app@${pushed.manifestDigest}`);
    expect((data.manifest as { mediaType: string }).mediaType).toBe(
      'application/vnd.docker.distribution.manifest.v2+json',
    );
    expect(data.configData).toEqual(amd64Config);
  });

  it('resolves an index to its linux/amd64 image, keeping the index digest in resolvedImage', async () => {
    const registry = await fakeRegistry();
    const arm = { config: { architecture: 'arm64', os: 'linux' }, platform: { os: 'linux', architecture: 'arm64' } };
    const amd = { config: amd64Config, platform: { os: 'linux', architecture: 'amd64', variant: 'v2' } };
    const windows = { config: { os: 'windows' }, platform: { os: 'windows', architecture: 'amd64' } };
    const { indexDigest, images } = registry.pushIndex('multi', 'latest', [arm, windows, amd], 'docker');

    const data = await loopbackClient().imageData(`${registry.host}/multi`, insecure);

    expect(data.identifier).toBe('latest');
    expect(data.resolvedImage).toBe(`${registry.host}/multi@${indexDigest}`);
    expect(data.manifest).toEqual(images[2].manifest);
    expect(data.configData).toEqual(amd64Config);
    expect(registry.requests.map((request) => request.path)).toContain(
      `/v2/multi/manifests/${images[2].manifestDigest}`,
    );
  });

  it('fails clearly when an index has no linux/amd64 image', async () => {
    const registry = await fakeRegistry();
    const { indexDigest } = registry.pushIndex('armonly', 'v1', [
      { config: {}, platform: { os: 'linux', architecture: 'arm64' } },
    ]);
    await expect(loopbackClient().imageData(`${registry.host}/armonly:v1`, insecure)).rejects.toThrow(
      `image ${registry.host}/armonly:v1: the index ${indexDigest} has no image for platform linux/amd64`,
    );
  });

  it('names the image when it is not found', async () => {
    const registry = await fakeRegistry();
    const image = `${registry.host}/team/missing:1`;
    const call = loopbackClient().imageData(image, insecure);
    await expect(call).rejects.toThrow(ImageNotFoundError);
    await expect(call).rejects.toThrow(
      `image ${image}: manifest 1 not found in ${registry.host}/team/missing: MANIFEST_UNKNOWN manifest unknown: team/missing:1`,
    );
  });

  it('follows the redirect registries give for blobs', async () => {
    const registry = await fakeRegistry({ redirectBlobs: true });
    const pushed = registry.pushImage('app', 'v1', { config: amd64Config });
    const data = await loopbackClient().imageData(`${registry.host}/app:v1`, insecure);
    expect(data.configData).toEqual(amd64Config);
    expect(registry.requests.map((request) => request.path)).toContain(`/storage/${pushed.configDigest}`);
  });

  describe('token auth', () => {
    it('gets a token with the matching credentials, then reads with it', async () => {
      const registry = await fakeRegistry({ auth: { type: 'bearer', username: 'alice', password: 'pw' } });
      registry.pushImage('team/app', 'v1', { config: amd64Config });
      const data = await loopbackClient().imageData(`${registry.host}/team/app:v1`, {
        ...insecure,
        dockerConfigs: [pullSecret(registry.host, 'alice', 'pw')],
      });
      expect(data.configData).toEqual(amd64Config);
      const token = registry.requests.find((request) => request.path.startsWith('/token'));
      expect(token?.path).toBe('/token?service=fake-registry&scope=repository%3Ateam%2Fapp%3Apull');
      expect(token?.authorization).toBe(`Basic ${Buffer.from('alice:pw').toString('base64')}`);
      const reads = registry.requests.filter((request) => request.path.startsWith('/v2/') && request.authorization);
      expect(reads.length).toBeGreaterThanOrEqual(2);
      expect(reads.every((request) => request.authorization?.startsWith('Bearer '))).toBe(true);
    });

    it('exchanges an identity token (OAuth2 refresh token) by POST', async () => {
      const registry = await fakeRegistry({ auth: { type: 'bearer', refreshToken: 'refresh-me' } });
      registry.pushImage('app', 'v1', { config: amd64Config });
      const config = parseDockerConfigJson(
        JSON.stringify({ auths: { [registry.host]: { identitytoken: 'refresh-me' } } }),
        'Secret kyverno/acr',
      );
      const data = await loopbackClient().imageData(`${registry.host}/app:v1`, {
        ...insecure,
        dockerConfigs: [config],
      });
      expect(data.configData).toEqual(amd64Config);
      expect(registry.requests.some((request) => request.method === 'POST' && request.path === '/token')).toBe(true);
    });

    it('works anonymously when the token endpoint allows it', async () => {
      const registry = await fakeRegistry({ auth: { type: 'bearer' } });
      registry.pushImage('public', 'v1', { config: amd64Config });
      await expect(loopbackClient().imageData(`${registry.host}/public:v1`, insecure)).resolves.toMatchObject({
        configData: amd64Config,
      });
    });

    it('says which credentials the token endpoint refused', async () => {
      const registry = await fakeRegistry({ auth: { type: 'bearer', username: 'alice', password: 'pw' } });
      registry.pushImage('app', 'v1', { config: amd64Config });
      const image = `${registry.host}/app:v1`;
      await expect(loopbackClient().imageData(image, insecure)).rejects.toThrow(
        `image ${image}: the token endpoint http://${registry.host}/token refused anonymous access (401)`,
      );
      const wrong = loopbackClient().imageData(image, {
        ...insecure,
        dockerConfigs: [pullSecret(registry.host, 'alice', 'nope')],
      });
      await expect(wrong).rejects.toThrow(RegistryAuthError);
      await expect(wrong).rejects.toThrow(
        `refused the credentials for "${registry.host}" from Secret kyverno/regcred (401)`,
      );
    });
  });

  describe('basic auth', () => {
    it('sends the matching credentials', async () => {
      const registry = await fakeRegistry({ auth: { type: 'basic', username: 'bob', password: 's3cret' } });
      registry.pushImage('app', 'v1', { config: amd64Config });
      const data = await loopbackClient().imageData(`${registry.host}/app:v1`, {
        ...insecure,
        dockerConfigs: [pullSecret('other.example.com', 'x', 'y'), pullSecret(registry.host, 'bob', 's3cret')],
      });
      expect(data.configData).toEqual(amd64Config);
    });

    it('fails closed without credentials, and with wrong ones', async () => {
      const registry = await fakeRegistry({ auth: { type: 'basic', username: 'bob', password: 's3cret' } });
      registry.pushImage('app', 'v1', { config: amd64Config });
      const image = `${registry.host}/app:v1`;
      await expect(loopbackClient().imageData(image, insecure)).rejects.toThrow(
        `image ${image}: ${registry.host} requires credentials (Basic) and no docker config Secret has any for it`,
      );
      await expect(
        loopbackClient().imageData(image, { ...insecure, dockerConfigs: [pullSecret(registry.host, 'bob', 'x')] }),
      ).rejects.toThrow(
        `image ${image}: ${registry.host} refused the credentials for "${registry.host}" from Secret kyverno/regcred (401: UNAUTHORIZED authentication required)`,
      );
    });
  });

  describe('limits', () => {
    it('refuses a manifest over the cap', async () => {
      const registry = await fakeRegistry();
      const padded = JSON.stringify({ schemaVersion: 2, config: {}, padding: 'x'.repeat(4096) });
      registry.putManifest('big', padded, 'application/vnd.oci.image.manifest.v1+json', 'v1');
      await expect(
        loopbackClient({ maxManifestBytes: 2048 }).imageData(`${registry.host}/big:v1`, insecure),
      ).rejects.toThrow(
        /^image 127\.0\.0\.1:\d+\/big:v1: response from .*\/v2\/big\/manifests\/v1 exceeds the 2 KiB limit$/,
      );
    });

    it('refuses a config blob over the cap before fetching it', async () => {
      const registry = await fakeRegistry();
      const pushed = registry.pushImage('fat', 'v1', { config: { padding: 'y'.repeat(4096) } });
      await expect(
        loopbackClient({ maxConfigBytes: 1024 }).imageData(`${registry.host}/fat:v1`, insecure),
      ).rejects.toThrow(`the config blob ${pushed.configDigest} (4110 bytes) exceeds the 1 KiB limit`);
      expect(registry.requests.some((request) => request.path.includes('/blobs/'))).toBe(false);
    });
  });

  describe('digests', () => {
    it('refuses a manifest whose content does not match the digest asked for', async () => {
      const registry = await fakeRegistry();
      const pushed = registry.pushImage('app', 'v1', { config: amd64Config });
      registry.tamperManifest(
        'app',
        pushed.manifestDigest,
        JSON.stringify({ ...pushed.manifest, annotations: { x: 'y' } }),
      );
      await expect(
        loopbackClient().imageData(`${registry.host}/app@${pushed.manifestDigest}`, insecure),
      ).rejects.toThrow(new RegExp(`digest mismatch: asked for ${pushed.manifestDigest}, the manifest's is sha256:`));
    });

    it('refuses a config blob whose content does not match its digest', async () => {
      const registry = await fakeRegistry();
      const pushed = registry.pushImage('app', 'v1', { config: amd64Config });
      registry.tamperBlob(pushed.configDigest, JSON.stringify({ ...amd64Config, os: 'evil' }));
      await expect(loopbackClient().imageData(`${registry.host}/app:v1`, insecure)).rejects.toThrow(
        `digest mismatch: the config blob ${pushed.configDigest} has digest sha256:`,
      );
    });

    it('refuses Docker schema 1 manifests as Kyverno does', async () => {
      const registry = await fakeRegistry();
      registry.putManifest(
        'old',
        '{"schemaVersion":1}',
        'application/vnd.docker.distribution.manifest.v1+prettyjws',
        'v1',
      );
      await expect(loopbackClient().imageData(`${registry.host}/old:v1`, insecure)).rejects.toThrow(
        'Docker schema 1 manifests (application/vnd.docker.distribution.manifest.v1+prettyjws) are not supported',
      );
    });
  });

  describe('the egress guard', () => {
    it('by default refuses a registry on loopback or the metadata address, before connecting', async () => {
      const registry = await fakeRegistry();
      registry.pushImage('app', 'v1', { config: amd64Config });
      const egress = new EgressClient();
      egresses.push(egress);
      const client = new RegistryClient(egress);

      const loopback = client.imageData(`${registry.host}/app:v1`, insecure);
      await expect(loopback).rejects.toThrow(RegistryError);
      await expect(loopback).rejects.toThrow(
        `image ${registry.host}/app:v1: refused: address 127.0.0.1 is in the blocked range 127.0.0.0/8 (egress block list) calling https://${registry.host}/v2/app/manifests/v1`,
      );
      await expect(loopback.catch((error: Error) => error.cause)).resolves.toBeInstanceOf(EgressRefusedError);
      expect(registry.requests).toHaveLength(0);

      await expect(client.imageData('169.254.169.254/latest/meta-data:v1')).rejects.toThrow(
        'image 169.254.169.254/latest/meta-data:v1: refused: address 169.254.169.254 is in the blocked range 169.254.0.0/16',
      );
    });

    it('uses HTTPS only unless allowInsecureRegistry is set', async () => {
      const registry = await fakeRegistry();
      registry.pushImage('app', 'v1', { config: amd64Config });
      await expect(loopbackClient().imageData(`${registry.host}/app:v1`)).rejects.toThrow(
        new RegExp(`^image ${registry.host}/app:v1: calling https://${registry.host}/v2/app/manifests/v1 failed: `),
      );
      expect(registry.requests).toHaveLength(0);
    });

    it('uses plain HTTP for the registries listed in insecureRegistries (host, host:port or *)', async () => {
      const registry = await fakeRegistry();
      registry.pushImage('app', 'v1', { config: amd64Config });
      const image = `${registry.host}/app:v1`;
      for (const listed of [['127.0.0.1'], [registry.host], ['*']]) {
        const data = await loopbackClient({ insecureRegistries: listed }).imageData(image);
        expect(data.configData, listed.join()).toEqual(amd64Config);
      }
      await expect(
        loopbackClient({ insecureRegistries: ['127.0.0.2', '127.0.0.1:1'] }).imageData(image),
      ).rejects.toThrow(`calling https://${registry.host}/v2/app/manifests/v1 failed`);
      expect(() => loopbackClient({ insecureRegistries: ['http://127.0.0.1'] })).toThrow(
        'insecureRegistries entries must be host[:port] or *',
      );
    });
  });

  describe('the cache', () => {
    it('reuses resolved data per reference and credentials, handing out copies', async () => {
      const registry = await fakeRegistry({ auth: { type: 'basic', username: 'bob', password: 'pw' } });
      registry.pushImage('app', 'v1', { config: amd64Config });
      const client = loopbackClient();
      const request = { ...insecure, dockerConfigs: [pullSecret(registry.host, 'bob', 'pw')] };
      const image = `${registry.host}/app:v1`;

      const first = await client.imageData(image, request);
      const calls = registry.requests.length;
      (first.configData as { os: string }).os = 'changed';
      const second = await client.imageData(image, request);
      expect(registry.requests).toHaveLength(calls);
      expect(second.configData).toEqual(amd64Config);

      // Other credentials are another identity: fetched (and refused) on their own.
      await expect(
        client.imageData(image, { ...insecure, dockerConfigs: [pullSecret(registry.host, 'bob', 'wrong')] }),
      ).rejects.toThrow(RegistryAuthError);
      await expect(client.imageData(image, insecure)).rejects.toThrow(RegistryAuthError);
    });
  });

  it('names a reference it cannot parse', async () => {
    await expect(loopbackClient().imageData('UPPER/Case:tag')).rejects.toThrow(
      /^image UPPER\/Case:tag: invalid image reference/,
    );
  });
});
