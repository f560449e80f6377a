/**
 * The local twins' registry for one run: Debian's docker-registry on loopback, the images of
 * images.ts pushed over the OCI API and signed (sign-images.ts), and what the twins and the
 * clusters need to reach it: `$values` (host, references, digests, per-run trust material) and
 * the controller settings that let the cluster's registry client reach 127.0.0.1.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JsonObject } from '@edict/foundation';
import type { OciWriter } from '@edict/image-verify/testing';
import type { OciClient } from '@edict/registry';
import { pushTestImage, registryClientForTests, startLocalRegistry } from '@edict/registry/testing';
import { TEST_IMAGES, type PushedImage, type TestImage } from './images';
import { signImages } from './sign-images';

export interface PreparedRegistry {
  /** `$values` of every twin. */
  readonly values: JsonObject;
  /** Controller variables on top of the suite's install: the run's registry allowed. */
  readonly clusterEnv: Readonly<Record<string, string>>;
  /** Stops the registry and removes what it stored. */
  stop(): Promise<void>;
}

export async function prepareLocalRegistry(): Promise<PreparedRegistry> {
  const registry = await startLocalRegistry();
  const client = registryClientForTests();
  try {
    const oci = client.oci();
    const images = await pushImages(oci, registry.host);
    const trust = await signImages(writerOf(oci), images);
    // The installation's Sigstore trusted root (what Kyverno's TUF settings give it): the run's own.
    const trustDir = mkdtempSync(join(tmpdir(), 'edict-trusted-root-'));
    const trustedRootPath = join(trustDir, 'trusted_root.json');
    writeFileSync(trustedRootPath, trust.trustedRootJson);
    return {
      values: { registry: registry.host, images: { ...images }, trust } as unknown as JsonObject,
      clusterEnv: { ...clusterSettings(registry.host), EDICT_TRUSTED_ROOT_PATH: trustedRootPath },
      stop: async () => {
        client.close();
        rmSync(trustDir, { recursive: true, force: true });
        await registry.stop();
      },
    };
  } catch (error) {
    client.close();
    await registry.stop();
    throw error;
  }
}

/** Pushes every image of the catalogue; each gets its own content (seeded by its name) unless `sameAs`. */
export async function pushImages(oci: OciClient, host: string): Promise<Record<string, PushedImage>> {
  const pushed: Record<string, PushedImage> = {};
  const entries = Object.entries(TEST_IMAGES) as Array<[string, TestImage]>;
  for (const [name, image] of entries) {
    const repo = `${host}/${image.repository}`;
    const seed = image.sameAs ?? name;
    const { digest } = await pushTestImage(oci, repo, image.tag, {
      seed,
      platforms: [image.platform ?? 'linux/amd64'],
    });
    pushed[name] = {
      ref: `${repo}:${image.tag}`,
      digest,
      pinned: `${repo}:${image.tag}@${digest}`,
      byDigest: `${repo}@${digest}`,
    };
  }
  return pushed;
}

/**
 * The controllers' settings for a registry on 127.0.0.1: plain HTTP to it, and its address let
 * through the registry client's egress guard (nothing else of loopback).
 */
export function clusterSettings(host: string): Record<string, string> {
  return { EDICT_INSECURE_REGISTRIES: host, EDICT_REGISTRY_ALLOWED_ADDRESSES: '127.0.0.1' };
}

/**
 * The registry client as the signers' writer: the same methods; the registry types a descriptor's
 * `platform['os.features']` readonly where image-verify's is mutable, which the signers only read.
 */
export function writerOf(client: OciClient): OciWriter {
  return client as unknown as OciWriter;
}
