// openapi-builtins.json is generated: it must be what scripts/generate-openapi-builtins.mjs writes
// from the installed @kubernetes/client-node and kubernetes-models (a version bump regenerates it).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

describe('openapi-builtins.json', () => {
  it('is what the generator writes from the installed packages', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['scripts/generate-openapi-builtins.mjs', '--check'],
      {
        timeout: 60_000,
      },
    );
    expect(stdout).toContain('is up to date');
  }, 90_000);
});
