import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '@edict/foundation';
import { defaultEngineFactory } from '@edict/kyverno-test';
import { clusterPolicy, writeTree, yaml } from '@edict/kyverno-test/testing';
import { startLocalRegistry, type LocalRegistry } from '@edict/registry/testing';
import { runCli, runCliOn } from '../../testing/run-cli';
import { POLICY_CONFIG_MEDIA_TYPE, POLICY_LAYER_MEDIA_TYPE } from './policy-image';

describe('edict oci push|pull against a real registry (docker-registry on loopback)', () => {
  let registry: LocalRegistry;

  beforeAll(async () => {
    registry = await startLocalRegistry();
  });
  afterAll(async () => {
    await registry?.stop();
  });

  it('pushes policies as an image the registry stores, and pulls them back into a folder', async () => {
    const dir = writeTree({
      'policies/a.yaml': yaml(clusterPolicy('require-app', ['check']), clusterPolicy('require-team', ['check'])),
    });
    const image = `${registry.host}/policies/baseline:1.0`;
    const push = await runCli(['oci', 'push', '-p', join(dir, 'policies'), '-i', image]);
    expect(push.err).toContain('Done.');
    expect(push.code).toBe(0);

    const response = await fetch(`${registry.url}/v2/policies/baseline/manifests/1.0`, {
      headers: { accept: 'application/vnd.oci.image.manifest.v1+json' },
    });
    expect(response.headers.get('content-type')).toBe('application/vnd.oci.image.manifest.v1+json');
    const manifest = (await response.json()) as JsonObject;
    expect((manifest.config as JsonObject).mediaType).toBe(POLICY_CONFIG_MEDIA_TYPE);
    expect(
      (manifest.layers as JsonObject[]).map((layer) => [
        layer.mediaType,
        (layer.annotations as JsonObject)['io.kyverno.image.name'],
      ]),
    ).toEqual([
      [POLICY_LAYER_MEDIA_TYPE, 'require-app'],
      [POLICY_LAYER_MEDIA_TYPE, 'require-team'],
    ]);

    const out = join(dir, 'pulled');
    const pull = await runCli(['oci', 'pull', '-i', image, '-d', out]);
    expect(pull.code).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['require-app.yaml', 'require-team.yaml']);
    const pulled = parse(readFileSync(join(out, 'require-team.yaml'), 'utf8')) as JsonObject;
    expect(pulled.kind).toBe('ClusterPolicy');
    expect((pulled.metadata as JsonObject).name).toBe('require-team');

    // The pulled folder is a policy folder the other commands read.
    const pod = writeTree({
      'pod.yaml': yaml({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'p' },
        spec: { containers: [{ name: 'c', image: 'nginx' }] },
      }),
    });
    const apply = await runCliOn(defaultEngineFactory, ['apply', out, '-r', join(pod, 'pod.yaml')]);
    expect(apply.out + apply.err).toContain('pass: 0, fail: 2, warn: 0, error: 0, skip: 0');
  });
});
