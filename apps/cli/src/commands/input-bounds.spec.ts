/**
 * What the CLI reads and builds is bounded, with the real engine: a patch chain that doubles the
 * resource is an error result, not a heap abort; only regular files under the size cap are read;
 * nesting too deep is named plainly.
 */
import { execFileSync } from 'node:child_process';
import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { defaultEngineFactory, DEFAULT_MAX_FILE_SIZE, setMaxFileSize } from '@edict/kyverno-test';
import { writeTree, yaml } from '@edict/kyverno-test/testing';
import { runCliOn } from '../testing/run-cli';

const cli = (args: string[]) => runCliOn(defaultEngineFactory, args);

afterEach(() => {
  vi.unstubAllEnvs();
  setMaxFileSize(DEFAULT_MAX_FILE_SIZE);
});

const copyChain = Array.from({ length: 40 }, (_, i) => ({ op: 'copy', from: '/data', path: `/data/x${i + 1}` }));

const growPolicy = {
  apiVersion: 'kyverno.io/v1',
  kind: 'Policy',
  metadata: { name: 'grow', namespace: 'team-a' },
  spec: {
    rules: [
      {
        name: 'double',
        match: { any: [{ resources: { kinds: ['ConfigMap'] } }] },
        mutate: { patchesJson6902: JSON.stringify(copyChain) },
      },
    ],
  },
};

const configMap = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'victim', namespace: 'team-a' },
  data: { a: 'x'.repeat(1024) },
};

const labelPolicy = {
  apiVersion: 'kyverno.io/v1',
  kind: 'ClusterPolicy',
  metadata: { name: 'label' },
  spec: {
    rules: [
      {
        name: 'add',
        match: { any: [{ resources: { kinds: ['ConfigMap'] } }] },
        mutate: { patchStrategicMerge: { metadata: { labels: { seen: 'yes' } } } },
      },
    ],
  },
};

describe('edict apply with a JSON-patch copy chain', () => {
  it('prints an error result naming policy and rule instead of aborting', async () => {
    const dir = writeTree({ 'policy.yaml': yaml(growPolicy), 'resource.yaml': yaml(configMap) });
    const args = ['apply', join(dir, 'policy.yaml'), '-r', join(dir, 'resource.yaml')];
    const summary = await cli(args);
    expect(summary.out).toContain('pass: 0, fail: 0, warn: 0, error: 1, skip: 0');
    expect(summary.code).toBe(1);
    const report = await cli([...args, '--policy-report']);
    expect(report.out).toContain('name: grow\n  namespace: team-a\n');
    expect(report.out).toMatch(
      /- message: the resource after JSON-patch operation \d+ \(copy \/data\/x\d+\) exceeds the 3 MiB document size limit\n {2}policy: team-a\/grow\n[\s\S]* {2}result: error\n {2}rule: double\n/,
    );
  });
});

describe('edict input files', () => {
  const inputs = () =>
    writeTree({ 'policy.yaml': yaml(labelPolicy), 'resource.yaml': yaml(configMap), 'dir/x.yaml': '' });

  it('refuses a symlink to /dev/zero, naming the path, without reading it', async () => {
    const dir = inputs();
    const zero = join(dir, 'zero.yaml');
    symlinkSync('/dev/zero', zero);
    const { err, code } = await cli(['apply', join(dir, 'policy.yaml'), '-r', zero]);
    expect(err).toBe(`Error: ${zero}: is a character device, not a regular file\n`);
    expect(code).toBe(1);
  });

  it('refuses a FIFO without waiting for a writer', async () => {
    const dir = inputs();
    const fifo = join(dir, 'pipe.yaml');
    execFileSync('mkfifo', [fifo]);
    const { err, code } = await cli(['apply', fifo, '-r', join(dir, 'resource.yaml')]);
    expect(err).toBe(`Error: ${fifo}: is a FIFO (named pipe), not a regular file\n`);
    expect(code).toBe(1);
  });

  it('refuses a directory where a file is expected', async () => {
    const dir = inputs();
    const folder = join(dir, 'dir');
    const { err, code } = await cli([
      'apply',
      join(dir, 'policy.yaml'),
      '-r',
      join(dir, 'resource.yaml'),
      '-f',
      folder,
    ]);
    expect(err).toBe(`Error: ${folder}: is a directory, expected a file\n`);
    expect(code).toBe(1);
  });

  it('caps the size of a file at 10 MiB by default, changed by --max-file-size or EDICT_MAX_FILE_SIZE', async () => {
    const dir = inputs();
    const big = join(dir, 'big.yaml');
    writeFileSync(big, yaml({ ...configMap, data: { a: 'x'.repeat(DEFAULT_MAX_FILE_SIZE) } }));
    const policy = join(dir, 'policy.yaml');
    const over = await cli(['apply', policy, '-r', big]);
    expect(over.err).toMatch(
      new RegExp(
        `^Error: ${big}: is \\d+ bytes, over the 10 MiB limit for input files \\(--max-file-size or EDICT_MAX_FILE_SIZE\\)\\n$`,
      ),
    );
    const small = join(dir, 'resource.yaml');
    const flagged = await cli(['apply', policy, '-r', small, '--max-file-size', '512']);
    expect(flagged.err).toContain('over the 512 bytes limit for input files');
    vi.stubEnv('EDICT_MAX_FILE_SIZE', '1Ki');
    expect((await cli(['apply', policy, '-r', small])).err).toContain('over the 1 KiB limit for input files');
    expect((await cli(['apply', policy, '-r', small, '--max-file-size', '0'])).code).toBe(0);
    expect((await cli(['apply', policy, '-r', small, '--max-file-size', 'lots'])).err).toContain(
      "option '--max-file-size <size>' argument 'lots' is invalid",
    );
  });

  it('names a file, document and line whose nesting is too deep, for JSON and YAML alike', async () => {
    const dir = inputs();
    const json = join(dir, 'deep.json');
    writeFileSync(json, `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`);
    const fromJson = await cli(['apply', join(dir, 'policy.yaml'), '-r', json]);
    expect(fromJson.err).toBe(`Error: ${json} (document 1, line 1): nesting deeper than 256 levels\n`);

    const block = join(dir, 'deep.yaml');
    const lines = Array.from({ length: 300 }, (_, i) => `${' '.repeat(i)}a:`);
    writeFileSync(block, `${yaml(configMap)}---\n${lines.join('\n')} 1\n`);
    const fromYaml = await cli(['apply', join(dir, 'policy.yaml'), '-r', block]);
    expect(fromYaml.err).toMatch(
      new RegExp(`^Error: ${block} \\(document 2, line \\d+\\): nesting deeper than 256 levels at \\.\\.\\.a\\.a\\.a`),
    );
  });
});
