import { existsSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { JsonObject } from '@edict/foundation';
import { clusterPolicy, writeTree, yaml } from '@edict/kyverno-test/testing';
import { FakeRegistry } from '@edict/registry/testing';
import { runCli } from '../../testing/run-cli';
import { POLICY_CONFIG_MEDIA_TYPE, POLICY_LAYER_MEDIA_TYPE } from './policy-image';

const validatingPolicy = (name: string, expression = 'object.metadata.name != "bad"') => ({
  apiVersion: 'policies.kyverno.io/v1',
  kind: 'ValidatingPolicy',
  metadata: { name },
  spec: {
    matchConstraints: {
      resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
    },
    validations: [{ expression, message: 'no' }],
  },
});

let registry: FakeRegistry;

beforeAll(async () => {
  registry = await FakeRegistry.start();
});
afterAll(() => registry.close());
afterEach(() => vi.restoreAllMocks());

async function fetchJson(path: string): Promise<JsonObject> {
  const response = await fetch(`http://${registry.host}${path}`, {
    headers: { accept: 'application/vnd.oci.image.manifest.v1+json' },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as JsonObject;
}

/** An image of one policy layer holding `layer`, as another tool could have pushed it. */
function craftedImage(repository: string, tag: string, layer: string, mediaType = POLICY_LAYER_MEDIA_TYPE): string {
  const config = '{}';
  const manifest = {
    schemaVersion: 2,
    mediaType: 'application/vnd.oci.image.manifest.v1+json',
    config: { mediaType: POLICY_CONFIG_MEDIA_TYPE, digest: registry.putBlob(config), size: config.length },
    layers: [{ mediaType, digest: registry.putBlob(layer), size: Buffer.byteLength(layer) }],
  };
  registry.putManifest(repository, JSON.stringify(manifest), manifest.mediaType, tag);
  return `${registry.host}/${repository}:${tag}`;
}

describe('edict oci push', () => {
  it("pushes one layer per policy with Kyverno's media types and annotations, and pull writes them back", async () => {
    const dir = writeTree({
      'policies/cpol.yaml': yaml(clusterPolicy('require-labels', ['check'])),
      'policies/more/vpol.yaml': yaml(validatingPolicy('no-bad-names')),
    });
    const image = `${registry.host}/team/policies:v1`;
    const push = await runCli(['oci', 'push', '-p', join(dir, 'policies'), '-i', image]);
    expect(push.err).toBe(
      [
        'Adding cluster policy [require-labels]',
        'Adding cluster policy [no-bad-names]',
        `Uploading [${image}]...`,
        'Done.',
        '',
      ].join('\n'),
    );
    expect(push.code).toBe(0);

    const manifest = await fetchJson('/v2/team/policies/manifests/v1');
    expect(manifest.mediaType).toBe('application/vnd.oci.image.manifest.v1+json');
    expect((manifest.config as JsonObject).mediaType).toBe(POLICY_CONFIG_MEDIA_TYPE);
    const layers = manifest.layers as JsonObject[];
    expect(layers.map((layer) => layer.mediaType)).toEqual([POLICY_LAYER_MEDIA_TYPE, POLICY_LAYER_MEDIA_TYPE]);
    expect(layers.map((layer) => layer.annotations)).toEqual([
      {
        'io.kyverno.image.kind': 'ClusterPolicy',
        'io.kyverno.image.name': 'require-labels',
        'io.kyverno.image.apiVersion': 'kyverno.io/v1',
      },
      {
        'io.kyverno.image.kind': 'ValidatingPolicy',
        'io.kyverno.image.name': 'no-bad-names',
        'io.kyverno.image.apiVersion': 'policies.kyverno.io/v1',
      },
    ]);

    const out = join(dir, 'pulled');
    const pull = await runCli(['oci', 'pull', '-i', image, '-d', out]);
    expect(pull.code).toBe(0);
    expect(pull.err).toContain(`Downloading policies from an image [${image}]...`);
    expect(pull.err).toContain(`Saving policy into disk [${join(out, 'require-labels.yaml')}]...`);
    expect(readdirSync(out).sort()).toEqual(['no-bad-names.yaml', 'require-labels.yaml']);
    expect(parse(readFileSync(join(out, 'no-bad-names.yaml'), 'utf8'))).toEqual(validatingPolicy('no-bad-names'));
    expect(parse(readFileSync(join(out, 'require-labels.yaml'), 'utf8')).metadata.name).toBe('require-labels');
  });

  it('takes the policy path as an argument too, and tags latest by default', async () => {
    const dir = writeTree({ 'p.yaml': yaml(clusterPolicy('p', ['r'])) });
    const push = await runCli(['oci', 'push', join(dir, 'p.yaml'), '-i', `${registry.host}/solo`]);
    expect(push.err).toContain(`Uploading [${registry.host}/solo:latest]...`);
    expect(push.code).toBe(0);
    expect(((await fetchJson('/v2/solo/manifests/latest')).layers as JsonObject[]).length).toBe(1);
  });

  it('validates every policy before pushing: an invalid one stops the push, naming policy, file and field', async () => {
    const dir = writeTree({
      'good.yaml': yaml(clusterPolicy('good', ['r'])),
      'bad.yaml': yaml(validatingPolicy('broken', 'object.metadata.name ==')),
    });
    const before = registry.requests.length;
    const run = await runCli(['oci', 'push', '-p', dir, '-i', `${registry.host}/never:v1`]);
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/^Error: validating policy broken: spec\.validations\[0\]\.expression: /);
    expect(registry.requests.length).toBe(before);

    const invalidRule = clusterPolicy('dup', ['same', 'same']);
    const classic = writeTree({ 'dup.yaml': yaml(invalidRule) });
    const dup = await runCli(['oci', 'push', '-p', classic, '-i', `${registry.host}/never:v2`]);
    expect(dup.code).toBe(1);
    expect(dup.err).toContain(
      `Error: unable to read policy file or directory ${classic}: ${join(classic, 'dup.yaml')} (document 1, line 19): ClusterPolicy/dup: spec.rules[1].name: duplicate rule name "same"`,
    );
  });

  it('fails as Kyverno does without an image or policies', async () => {
    const noImage = await runCli(['oci', 'push', '-p', '.']);
    expect(noImage.code).toBe(1);
    expect(noImage.err).toContain("required option '-i, --image <image>' not specified");
    const noPolicy = await runCli(['oci', 'push', '-i', `${registry.host}/x`]);
    expect(noPolicy.err).toBe('Error: policy is required\n');
    expect(noPolicy.code).toBe(1);
    const empty = writeTree({ 'pod.yaml': yaml({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a' } }) });
    const none = await runCli(['oci', 'push', empty, '-i', `${registry.host}/x`]);
    expect(none.err).toBe(`Error: no policies found in ${empty}\n`);
  });
});

describe('edict oci pull', () => {
  it('writes nothing for a policy name that is not an object name (no path traversal)', async () => {
    const evil = { ...clusterPolicy('x', ['r']), metadata: { name: '../../escaped' } };
    const image = craftedImage('evil', 'v1', yaml(evil));
    const dir = writeTree({ 'keep.txt': 'x' });
    const out = join(dir, 'out');
    const run = await runCli(['oci', 'pull', '-i', image, '-d', out]);
    expect(run.code).toBe(1);
    expect(run.err).toContain('Error: policy name "../../escaped" is not a valid Kubernetes object name');
    expect(existsSync(join(dir, 'escaped.yaml'))).toBe(false);
    expect(readdirSync(out)).toEqual([]);
  });

  it('never writes through a symbolic link in the directory', async () => {
    const image = craftedImage('linked', 'v1', yaml(clusterPolicy('target', ['r'])));
    const dir = writeTree({ 'outside.txt': 'keep' });
    const out = join(dir, 'out');
    await runCli(['oci', 'pull', '-i', image, '-d', out]);
    writeFileSync(join(dir, 'secret'), 'keep');
    const again = writeTree({});
    symlinkSync(join(dir, 'secret'), join(again, 'target.yaml'));
    const run = await runCli(['oci', 'pull', '-i', image, again]);
    expect(run.code).toBe(1);
    expect(run.err).toContain('it exists and is not a regular file');
    expect(readFileSync(join(dir, 'secret'), 'utf8')).toBe('keep');
  });

  it('reads only layers of the policy media type and refuses other documents in them', async () => {
    const other = craftedImage('other', 'v1', 'not: a policy', 'application/vnd.oci.image.layer.v1.tar');
    const dir = writeTree({});
    const skipped = await runCli(['oci', 'pull', '-i', other, '-d', dir]);
    expect(skipped.code).toBe(0);
    expect(readdirSync(dir)).toEqual([]);

    const pod = craftedImage('pod', 'v1', yaml({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a' } }));
    const refused = await runCli(['oci', 'pull', '-i', pod, '-d', dir]);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(
      /\nError: unmarshaling layer blob: layer sha256:[0-9a-f]{64} document 1 is not a Kyverno policy\n$/,
    );
  });

  it('creates the directory, refuses a file in its place, and reports a missing image', async () => {
    const image = craftedImage('made', 'v1', yaml(clusterPolicy('made', ['r'])));
    const dir = writeTree({ 'file.txt': 'x' });
    const created = await runCli(['oci', 'pull', '-i', image, '-d', join(dir, 'a/b')]);
    expect(created.code).toBe(0);
    expect(readdirSync(join(dir, 'a/b'))).toEqual(['made.yaml']);
    const file = await runCli(['oci', 'pull', '-i', image, '-d', join(dir, 'file.txt')]);
    expect(file.err).toBe(`Error: dir '${join(dir, 'file.txt')}' must be a directory\n`);
    expect(file.code).toBe(1);
    const missing = await runCli(['oci', 'pull', '-i', `${registry.host}/nothing:v1`, '-d', dir]);
    expect(missing.err).toContain(`Error: getting image: ${registry.host}/nothing:v1 not found`);
    expect(missing.code).toBe(1);
  });

  it('refuses a layer larger than the cap', async () => {
    const big = craftedImage('big', 'v1', `# ${'x'.repeat(4 * 1024 * 1024)}\n${yaml(clusterPolicy('big', ['r']))}`);
    const run = await runCli(['oci', 'pull', '-i', big, '-d', writeTree({})]);
    expect(run.code).toBe(1);
    expect(run.err).toContain('Error: getting layer blob: ');
  });
});
