import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const json = (relative: string) =>
  JSON.parse(readFileSync(resolve(__dirname, relative), 'utf8')) as {
    version?: string;
    dependencies?: Record<string, string>;
  };

/**
 * Edict's fixes of cel-js (this folder) override per-node hooks and extend the parser of cel-js 8.0.0
 * (internals.ts, syntax.ts). A new version may change those internals: re-run the conformance
 * suite and the language spec, re-check each fix against the new version, then update this pin.
 */
describe('cel-js is the version the fixes were written for', () => {
  it('is pinned exactly to 8.0.0 and installed at 8.0.0', () => {
    expect(json('../../../../package.json').dependencies?.['@marcbachmann/cel-js']).toBe('8.0.0');
    expect(json('../../../../node_modules/@marcbachmann/cel-js/package.json').version).toBe('8.0.0');
  });
});
