import { afterEach, describe, expect, it } from 'vitest';
import { dockerConfigFromSecret, RegistryCredentialsError, type DockerConfig } from '@edict/registry';
import { FakeRegistry } from '@edict/registry/testing';
import { DEFAULT_BLOCKED_CIDRS } from '@edict/egress';
import type { PullSecretSource } from './pull-secret-cache';
import { RegistryImageData, type RegistrySettings } from './registry-image-data';

/** A controller's registry settings: its defaults, with `overrides`. */
function settings(overrides: Partial<RegistrySettings> = {}): RegistrySettings {
  return { egressBlockedCidrs: DEFAULT_BLOCKED_CIDRS, apiCallTimeoutMs: 10_000, imagePullSecrets: [], ...overrides };
}

/** Docker config Secrets by name, recording which names were asked for. */
function pullSecrets(secrets: Record<string, DockerConfig>): PullSecretSource & { asked: string[][] } {
  return {
    asked: [],
    dockerConfigs(names) {
      this.asked.push([...names]);
      return names.map((name) => {
        const config = secrets[name];
        if (!config) throw new RegistryCredentialsError(`registry Secret edict/${name} not found`);
        return config;
      });
    },
  };
}

function dockerConfig(registry: string, username: string, password: string): DockerConfig {
  const auths = { [registry]: { auth: Buffer.from(`${username}:${password}`).toString('base64') } };
  return dockerConfigFromSecret({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'regcred', namespace: 'edict' },
    data: { '.dockerconfigjson': Buffer.from(JSON.stringify({ auths })).toString('base64') },
  });
}

describe('RegistryImageData', () => {
  let registry: FakeRegistry | undefined;
  let images: RegistryImageData | undefined;

  afterEach(async () => {
    images?.close();
    await registry?.close();
  });

  it("keeps image lookups off the controller's blocked addresses: a registry on loopback is refused unasked", async () => {
    registry = await FakeRegistry.start();
    registry.pushImage('team/app', '1.0', { config: { config: { User: 'app' } } });
    images = new RegistryImageData(settings(), pullSecrets({}));
    await expect(images.imageData(`${registry.host}/team/app:1.0`)).rejects.toThrow(
      /127\.0\.0\.1.*blocked range 127\.0\.0\.0\/8/,
    );
    expect(registry.requests).toEqual([]);
  });

  it('reaches a loopback registry only at the addresses allowed for registries, plain HTTP only where allowed', async () => {
    registry = await FakeRegistry.start();
    registry.pushImage('team/app', '1.0', { config: { config: { User: 'app' } } });
    const image = `${registry.host}/team/app:1.0`;
    images = new RegistryImageData(settings({ registryAllowedAddresses: ['127.0.0.2'] }), pullSecrets({}));
    await expect(images.imageData(image, { allowInsecureRegistry: true })).rejects.toThrow(
      /127\.0\.0\.1 is in the blocked range 127\.0\.0\.0\/31/,
    );
    images.close();

    images = new RegistryImageData(settings({ registryAllowedAddresses: ['127.0.0.1'] }), pullSecrets({}));
    await expect(images.imageData(image)).rejects.toThrow(
      `calling https://${registry.host}/v2/team/app/manifests/1.0 failed`,
    );
    expect(await images.imageData(image, { allowInsecureRegistry: true })).toMatchObject({ repository: 'team/app' });
    images.close();

    images = new RegistryImageData(
      settings({ registryAllowedAddresses: ['127.0.0.1'], insecureRegistries: [registry.host] }),
      pullSecrets({}),
    );
    expect(await images.imageData(image)).toMatchObject({ configData: { config: { User: 'app' } } });
  });

  it("reads a private image with the entry's Secrets, and fails naming what is missing without them", async () => {
    registry = await FakeRegistry.start({ auth: { type: 'basic', username: 'bob', password: 's3cret' } });
    registry.pushImage('team/private', '1.0', { config: { config: { User: 'app' } } });
    const secrets = pullSecrets({ regcred: dockerConfig(registry.host, 'bob', 's3cret') });
    images = new RegistryImageData(settings({ egressBlockedCidrs: [] }), secrets);
    const image = `${registry.host}/team/private:1.0`;

    const data = await images.imageData(image, { allowInsecureRegistry: true, secrets: ['regcred'] });
    expect(data).toMatchObject({
      registry: registry.host,
      repository: 'team/private',
      configData: { config: { User: 'app' } },
    });

    await expect(images.imageData(image, { allowInsecureRegistry: true, secrets: [] })).rejects.toThrow(image);
    await expect(images.imageData(image, { allowInsecureRegistry: true, secrets: ['other'] })).rejects.toThrow(
      'registry Secret edict/other not found',
    );
  });

  it("uses the controller's default pull Secrets only for entries that name no credentials, and refuses cloud providers", async () => {
    const secrets = pullSecrets({});
    images = new RegistryImageData(settings({ imagePullSecrets: ['default-a', 'default-b'] }), secrets);
    await expect(images.imageData('registry.example/app:1')).rejects.toThrow(
      'registry Secret edict/default-a not found',
    );
    await expect(images.imageData('registry.example/app:1', { secrets: ['mine'] })).rejects.toThrow(
      'registry Secret edict/mine not found',
    );
    expect(secrets.asked).toEqual([['default-a', 'default-b'], ['mine']]);
    await expect(images.imageData('registry.example/app:1', { providers: ['amazon'] })).rejects.toThrow(
      'the "amazon" credential provider is not supported by Edict',
    );
  });

  it('remembers the credentials and OCI client per set of Secrets until a Secret changes', async () => {
    const secrets = Object.assign(pullSecrets({ regcred: dockerConfig('registry.example', 'bob', 'pw') }), {
      changes: 0,
      revision(): number {
        return this.changes;
      },
    });
    images = new RegistryImageData(settings({ imagePullSecrets: ['regcred'] }), secrets);
    const first = images.oci({});
    expect(images.oci({})).toBe(first);
    expect(images.oci({ secrets: ['regcred'] })).toBe(first);
    const insecure = images.oci({ allowInsecure: true });
    expect(insecure).not.toBe(first);
    expect(images.oci({ secrets: [] })).not.toBe(first);
    // The warm path reads no Secret: one read per set of names.
    expect(secrets.asked).toEqual([['regcred'], []]);

    secrets.changes++;
    const afterChange = images.oci({});
    expect(afterChange).not.toBe(first);
    expect(secrets.asked).toEqual([['regcred'], [], ['regcred']]);

    // A Secret that cannot be read is an error each time, never remembered.
    expect(() => images!.oci({ secrets: ['missing'] })).toThrow('registry Secret edict/missing not found');
    expect(() => images!.oci({ secrets: ['missing'] })).toThrow('registry Secret edict/missing not found');
    expect(secrets.asked.filter(([name]) => name === 'missing')).toHaveLength(2);
  });

  it('reads the Secrets every time from a source without revisions', () => {
    const secrets = pullSecrets({ regcred: dockerConfig('registry.example', 'bob', 'pw') });
    images = new RegistryImageData(settings(), secrets);
    images.oci({ secrets: ['regcred'] });
    images.oci({ secrets: ['regcred'] });
    expect(secrets.asked).toEqual([['regcred'], ['regcred']]);
  });
});
