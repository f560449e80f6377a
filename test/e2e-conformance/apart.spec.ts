import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { discoverTestFiles } from '@edict/chainsaw';
import { LOCAL_DIR } from './args';
import { apartReason, readApart } from './run-suite';

const twinsDir = resolve(LOCAL_DIR);

describe('apart.json and the local twins', () => {
  const apart = readApart();
  const withTwins = Object.entries(apart).flatMap(([path, entry]) =>
    typeof entry === 'string' ? [] : [{ path, ...entry }],
  );

  it('gives every test that needs a public registry a twin, and names the host', () => {
    for (const [path, entry] of Object.entries(apart)) {
      const reason = typeof entry === 'string' ? entry : entry.reason;
      if (!reason.startsWith('needs a public registry')) continue;
      expect(reason, path).toMatch(/^needs a public registry \([a-z0-9.-]+(, [a-z0-9.-]+)*\)/);
      expect(typeof entry === 'string' ? undefined : entry.twin, path).toMatch(/^[a-z0-9-]+\/[a-z0-9-]+$/);
    }
    expect(withTwins.length).toBeGreaterThan(0);
  });

  it('names twins that exist, each a chainsaw test', () => {
    for (const { path, twin } of withTwins) {
      expect(existsSync(join(twinsDir, twin, 'chainsaw-test.yaml')), `${path} -> ${twin}`).toBe(true);
    }
  });

  it('has no twin that stands for nothing: each is named by a test counted apart', () => {
    const named = new Set(withTwins.map((entry) => entry.twin));
    const twins = discoverTestFiles([twinsDir]).map((file) =>
      file.slice(twinsDir.length + 1).replace(/\/chainsaw-test\.ya?ml$/, ''),
    );
    expect(twins.filter((twin) => !named.has(twin))).toEqual([]);
    expect(readdirSync(twinsDir).length).toBeGreaterThan(0);
  });

  it('shows the twin in the reason the report prints', () => {
    expect(apartReason({ reason: 'needs a public registry (ghcr.io): x', twin: 'cosign/keyed-basic' })).toBe(
      `needs a public registry (ghcr.io): x (local twin: ${LOCAL_DIR}/cosign/keyed-basic)`,
    );
    expect(apartReason('needs a kubelet')).toBe('needs a kubelet');
  });
});
