/**
 * The npm package a user installs without cloning: `npm pack` of the repository, then
 * `npm install -g --prefix <tmp>` of the tarball, and the installed `edict` runs. The package ships
 * the CLI bundle (`files`), its `bin` points at it, and npm installs its runtime dependencies.
 */
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = resolve(__dirname, '../..');
const { version, bin } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  version: string;
  bin: Record<string, string>;
};

function run(command: string, args: string[], options: SpawnSyncOptions = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', timeout: 600_000, ...options });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} exited ${result.status}: ${String(result.stderr).slice(-2000)}`);
  }
  return String(result.stdout);
}

describe('the npm package', () => {
  let dir: string;
  let tarball: string;
  let files: string[];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'edict-package-'));
    // The CLI bundle the package ships, built as the image builds it.
    run('node', [join(root, 'scripts/image/bundle.cjs'), 'cli'], { cwd: root });
    const [packed] = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: root })) as Array<{
      filename: string;
      files: Array<{ path: string }>;
    }>;
    tarball = join(dir, packed.filename);
    files = packed.files.map((file) => file.path);
  }, 600_000);

  // The installed tree holds hundreds of packages.
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 300_000);

  it('holds the CLI bundle its bin points at, and no sources', () => {
    expect(bin).toEqual({ edict: 'dist/apps/cli/main.js' });
    expect(files).toContain('dist/apps/cli/main.js');
    expect(files).toContain('package.json');
    expect(files.filter((file) => file.endsWith('.ts'))).toEqual([]);
  });

  it('installs globally from the tarball, and the installed edict runs', () => {
    const prefix = join(dir, 'prefix');
    run(
      'npm',
      ['install', '-g', '--prefix', prefix, tarball, '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'],
      { cwd: dir },
    );
    const edict = join(prefix, 'bin', 'edict');
    expect(run(edict, ['version'], { cwd: dir })).toBe(`Version: ${version}\nTime: ---\nGit commit ID: ---\n`);
    expect(run(edict, ['completion', 'bash'], { cwd: dir })).toContain('complete -o default -F _edict edict');
  }, 900_000);
});
