import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EgressClient } from '@edict/egress';
import { pushTestImage, registryClientForTests, startLocalRegistry, type LocalRegistry } from '@edict/registry/testing';
import { MEDIA_TYPES } from '../client/manifest';
import { RegistryClient } from '../client/registry-client';
import { dockerConfigFromSecret } from '../auth/docker-config';
import { ImageNotFoundError, RegistryAuthError, RegistryError } from '../registry-errors';
import { fallbackTag } from './oci-registry-client';
import type { OciClient } from './oci-types';

// Against Debian's docker-registry (CNCF distribution 2.8): no referrers API, so the fallback tag schema.
let registry: LocalRegistry;
let client: ReturnType<typeof registryClientForTests>;
let oci: OciClient;

beforeAll(async () => {
  registry = await startLocalRegistry();
  client = registryClientForTests();
  oci = client.oci();
});

afterAll(async () => {
  client?.close();
  await registry?.stop();
});

const SIGNATURE_TYPE = 'application/vnd.dev.edict.test-signature';

function sha256(bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/** An OCI 1.1 artifact manifest (empty config) with one blob, referring to `subject`. */
async function pushArtifact(repo: string, subject: string, text: string, artifactType = SIGNATURE_TYPE, to = oci) {
  const empty = await oci.pushBlob(repo, Buffer.from('{}'));
  const payload = await oci.pushBlob(repo, Buffer.from(text));
  const manifest = {
    schemaVersion: 2,
    mediaType: MEDIA_TYPES.ociManifest,
    artifactType,
    config: { mediaType: 'application/vnd.oci.empty.v1+json', digest: empty.digest, size: empty.size },
    layers: [{ mediaType: 'text/plain', digest: payload.digest, size: payload.size }],
    annotations: { 'dev.edict.note': text },
  };
  return to.pushReferrer(repo, subject, manifest, MEDIA_TYPES.ociManifest);
}

describe('OciClient against docker-registry', () => {
  it('pushes an image and reads it back by tag and by digest, digests verified', async () => {
    const repo = `${registry.host}/team/app`;
    const image = await pushTestImage(oci, repo, 'v1', { seed: 'one' });
    expect(image.reference).toBe(`${repo}:v1`);

    const byTag = await oci.getManifest(repo, 'v1');
    expect(byTag?.digest).toBe(image.digest);
    expect(byTag?.mediaType).toBe(MEDIA_TYPES.ociManifest);
    expect(sha256(byTag!.bytes)).toBe(image.digest);
    const byDigest = await oci.getManifest(repo, image.digest);
    expect(byDigest?.json).toEqual(byTag?.json);

    const config = byTag!.json.config as { digest: string; size: number };
    const blob = await oci.getBlob(repo, config.digest);
    expect(blob.length).toBe(config.size);
    expect(JSON.parse(Buffer.from(blob).toString('utf8'))).toMatchObject({ os: 'linux', architecture: 'amd64' });

    expect(await oci.resolve(repo, 'v1')).toEqual({
      mediaType: MEDIA_TYPES.ociManifest,
      digest: image.digest,
      size: byTag!.bytes.length,
    });
    // The same seed makes the same image; pushing it again changes nothing.
    const again = await pushTestImage(oci, repo, 'v1-again', { seed: 'one' });
    expect(again.digest).toBe(image.digest);
  });

  it('pushes a multi-platform index and reads each platform image', async () => {
    const repo = `${registry.host}/team/multi`;
    const image = await pushTestImage(oci, repo, 'v1', { platforms: ['linux/amd64', 'linux/arm64/v8'] });
    const index = await oci.getManifest(repo, 'v1');
    expect(index?.mediaType).toBe(MEDIA_TYPES.ociIndex);
    expect(index?.digest).toBe(image.digest);
    const entries = index!.json.manifests as Array<{ digest: string; platform: { architecture: string } }>;
    expect(entries.map((entry) => entry.platform.architecture)).toEqual(['amd64', 'arm64']);
    expect(entries.map((entry) => entry.digest)).toEqual([
      image.platforms['linux/amd64'],
      image.platforms['linux/arm64/v8'],
    ]);
    const arm = await oci.getManifest(repo, image.platforms['linux/arm64/v8']);
    expect(arm?.mediaType).toBe(MEDIA_TYPES.ociManifest);
    // imageData (Kyverno's imageRegistry context) reads the same registry through the same client.
    const data = await client.imageData(image.reference);
    expect(data.resolvedImage).toBe(image.digestReference);
  });

  it('attaches referrers through the fallback tag and lists them, filtered by artifactType', async () => {
    const repo = `${registry.host}/team/signed`;
    const image = await pushTestImage(oci, repo, 'v1');
    expect(await oci.listReferrers(repo, image.digest)).toEqual([]);

    const first = await pushArtifact(repo, image.digest, 'first');
    const second = await pushArtifact(repo, image.digest, 'second', 'application/vnd.dev.edict.test-sbom');
    // Pushing the same referrer twice keeps one entry.
    expect(await pushArtifact(repo, image.digest, 'first')).toEqual(first);

    expect(first).toMatchObject({
      mediaType: MEDIA_TYPES.ociManifest,
      artifactType: SIGNATURE_TYPE,
      annotations: { 'dev.edict.note': 'first' },
    });
    const all = await oci.listReferrers(repo, image.digest);
    expect(all).toEqual([first, second]);
    expect(await oci.listReferrers(repo, image.digest, SIGNATURE_TYPE)).toEqual([first]);

    // The fallback tag holds an OCI index listing them; each referrer names the image as subject.
    const tagged = await oci.getManifest(repo, fallbackTag(image.digest));
    expect(fallbackTag(image.digest)).toBe(`sha256-${image.digest.slice('sha256:'.length)}`);
    expect(tagged?.mediaType).toBe(MEDIA_TYPES.ociIndex);
    const referrer = await oci.getManifest(repo, first.digest);
    expect(referrer?.json.subject).toMatchObject({ digest: image.digest, mediaType: MEDIA_TYPES.ociManifest });
  });

  it('keeps every referrer when several are pushed at once', async () => {
    const repo = `${registry.host}/team/busy`;
    const image = await pushTestImage(oci, repo, 'v1');
    const pushed = await Promise.all(['a', 'b', 'c', 'd'].map((text) => pushArtifact(repo, image.digest, text)));
    const listed = await oci.listReferrers(repo, image.digest);
    expect(listed.map((entry) => entry.digest).sort()).toEqual(pushed.map((entry) => entry.digest).sort());
  });

  it('answers undefined for missing manifests and ImageNotFoundError for missing blobs', async () => {
    const repo = `${registry.host}/team/app`;
    const missing = `sha256:${'0'.repeat(64)}`;
    expect(await oci.getManifest(repo, 'no-such-tag')).toBeUndefined();
    expect(await oci.getManifest(`${registry.host}/no/such/repo`, 'v1')).toBeUndefined();
    expect(await oci.resolve(repo, missing)).toBeUndefined();
    await expect(oci.getBlob(repo, missing)).rejects.toBeInstanceOf(ImageNotFoundError);
    await expect(oci.getBlob(repo, missing)).rejects.toThrow(`blob ${missing} not found in ${repo}`);
    expect(await oci.listReferrers(repo, missing)).toEqual([]);
  });

  it('detects a blob whose stored content does not match its digest', async () => {
    const repo = `${registry.host}/team/tampered`;
    const text = Buffer.from('the original content');
    const blob = await oci.pushBlob(repo, text);
    // Tamper with the registry's storage behind its back, as a compromised mirror would serve.
    const hex = blob.digest.slice('sha256:'.length);
    const data = join(registry.storageDir, 'docker/registry/v2/blobs/sha256', hex.slice(0, 2), hex, 'data');
    expect(statSync(data).size).toBe(text.length);
    writeFileSync(data, 'THE ALTERED CONTENT!');
    await expect(oci.getBlob(repo, blob.digest)).rejects.toThrow(
      /digest mismatch: the blob sha256:[0-9a-f]{64} has digest/,
    );
  });

  it('detects a manifest whose stored content does not match its digest', async () => {
    const repo = `${registry.host}/team/tampered-manifest`;
    const image = await pushTestImage(oci, repo, 'v1');
    const hex = image.digest.slice('sha256:'.length);
    const data = join(registry.storageDir, 'docker/registry/v2/blobs/sha256', hex.slice(0, 2), hex, 'data');
    const original = JSON.parse(readFileSync(data).toString('utf8')) as Record<string, unknown>;
    writeFileSync(data, JSON.stringify({ ...original, annotations: { evil: 'yes' } }));
    await expect(oci.getManifest(repo, image.digest)).rejects.toThrow(/digest mismatch: asked for sha256:/);
    await expect(oci.getManifest(repo, 'v1')).rejects.toThrow(/does not match its Docker-Content-Digest/);
  });

  it('caps blobs, manifests and referrer lists', async () => {
    const repo = `${registry.host}/team/caps`;
    const big = await oci.pushBlob(repo, Buffer.alloc(64 * 1024, 7));
    await expect(oci.getBlob(repo, big.digest, 1024)).rejects.toThrow(RegistryError);
    expect((await oci.getBlob(repo, big.digest, 64 * 1024)).length).toBe(64 * 1024);

    const image = await pushTestImage(oci, repo, 'v1');
    const small = registryClientForTests({ registry: { maxManifestBytes: 1024, maxReferrers: 2 } });
    try {
      const capped = small.oci();
      await pushArtifact(repo, image.digest, 'one');
      await pushArtifact(repo, image.digest, 'two');
      await pushArtifact(repo, image.digest, 'three');
      await expect(capped.listReferrers(repo, image.digest)).rejects.toThrow(/maxReferrers/);
      const index = await pushTestImage(oci, repo, 'wide', {
        platforms: ['linux/amd64', 'linux/arm64', 'linux/s390x', 'linux/ppc64le', 'linux/386', 'linux/riscv64'],
      });
      await expect(capped.getManifest(repo, index.digest)).rejects.toThrow(RegistryError);
      await expect(pushArtifact(repo, image.digest, 'four', SIGNATURE_TYPE, capped)).rejects.toThrow(/maxReferrers/);
    } finally {
      small.close();
    }
  });

  it('refuses the registry on loopback without the test egress allowance', async () => {
    const egress = new EgressClient();
    try {
      const guarded = new RegistryClient(egress, { insecureRegistries: ['127.0.0.1'] }).oci();
      await expect(guarded.getManifest(`${registry.host}/team/app`, 'v1')).rejects.toThrow(
        /blocked range 127\.0\.0\.0\/8/,
      );
    } finally {
      egress.close();
    }
  });

  it('fails with a RegistryError once the registry is down, and stop() leaves nothing behind', async () => {
    const second = await startLocalRegistry();
    const repo = `${second.host}/team/app`;
    const image = await pushTestImage(oci, repo, 'v1');
    expect((await oci.resolve(repo, 'v1'))?.digest).toBe(image.digest);
    await second.stop();
    expect(existsSync(second.storageDir)).toBe(false);
    await expect(oci.getManifest(repo, 'v1')).rejects.toThrow(RegistryError);
    await expect(oci.getManifest(repo, 'v1')).rejects.toThrow(/ECONNREFUSED/);
  });

  it('pushes and reads through bearer auth with the docker config credentials; anonymous is refused', async () => {
    const tokenRequests: Array<{ authorization?: string; scopes: string[] }> = [];
    const tokens = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://token');
      tokenRequests.push({ authorization: req.headers.authorization, scopes: url.searchParams.getAll('scope') });
      const granted = req.headers.authorization === `Basic ${Buffer.from('ci:s3cret').toString('base64')}`;
      res.writeHead(granted ? 200 : 401, { 'content-type': 'application/json' });
      res.end(JSON.stringify(granted ? { token: 'granted-token' } : { errors: [{ code: 'UNAUTHORIZED' }] }));
    });
    await new Promise<void>((resolve) => tokens.listen(0, '127.0.0.1', resolve));
    const realm = `http://127.0.0.1:${(tokens.address() as AddressInfo).port}/token`;
    const guarded = await startLocalRegistry({ tokenAuth: { realm, service: 'edict-test' } });
    try {
      const repo = `${guarded.host}/team/private`;
      const secret = dockerConfigFromSecret({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'regcred', namespace: 'kyverno' },
        data: {
          '.dockerconfigjson': Buffer.from(
            JSON.stringify({ auths: { [guarded.host]: { username: 'ci', password: 's3cret' } } }),
          ).toString('base64'),
        },
      });
      const withCredentials = client.oci({ dockerConfigs: [secret] });
      const image = await pushTestImage(withCredentials, repo, 'v1');
      expect((await withCredentials.getManifest(repo, 'v1'))?.digest).toBe(image.digest);
      // distribution's silly controller takes any token once there is one: the realm decided who got in.
      expect(tokenRequests[0]?.scopes).toEqual(['repository:team/private:pull']);
      expect(tokenRequests.every((request) => request.authorization?.startsWith('Basic '))).toBe(true);
      await expect(client.oci().resolve(repo, 'v1')).rejects.toBeInstanceOf(RegistryAuthError);
    } finally {
      await guarded.stop();
      tokens.closeAllConnections();
      await new Promise<void>((resolve) => tokens.close(() => resolve()));
    }
  });

  it('names the package to install when the binary is missing', async () => {
    await expect(startLocalRegistry({ binary: '/nonexistent/docker-registry' })).rejects.toThrow(
      /\/nonexistent\/docker-registry is missing: install it with `sudo apt-get install -y docker-registry`/,
    );
  });

  it('uses plain HTTP only when allowed', async () => {
    const egress = new EgressClient({ blockedCidrs: [] });
    try {
      const strict = new RegistryClient(egress).oci();
      await expect(strict.getManifest(`${registry.host}/team/app`, 'v1')).rejects.toThrow(RegistryError);
      const allowed = new RegistryClient(egress).oci({ allowInsecure: true });
      expect(await allowed.resolve(`${registry.host}/team/app`, 'v1')).toBeDefined();
    } finally {
      egress.close();
    }
  });
});
