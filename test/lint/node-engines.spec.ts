import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { minVersion, satisfies } from 'semver';
import { describe, expect, it } from 'vitest';

// `npm ci` warns EBADENGINE for any locked package whose `engines.node` leaves out the Node version
// the README promises; an override in package.json pins a release that keeps it (see `overrides`).
const ROOT = resolve(__dirname, '../..');
const read = (file: string) => JSON.parse(readFileSync(resolve(ROOT, file), 'utf8'));

describe('Node engines of the locked dependencies', () => {
  it("admit the oldest Node that package.json's engines allow", () => {
    const oldest = minVersion(read('package.json').engines.node)!.version;
    const packages = read('package-lock.json').packages as Record<string, { version?: string; engines?: unknown }>;
    const refused = Object.entries(packages)
      .filter(([path]) => path !== '')
      .flatMap(([path, entry]) => {
        const node = (entry.engines as { node?: string } | undefined)?.node;
        return node && !satisfies(oldest, node) ? [`${path}@${entry.version}: node ${node}`] : [];
      });
    expect(oldest).toBe('20.19.0');
    expect(refused).toEqual([]);
  });
});
