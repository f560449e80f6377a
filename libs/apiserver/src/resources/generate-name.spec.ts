import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { JsonObject } from '@edict/foundation';

/** Queued draws for the name generator's randomInt (the mock is hoisted above the imports); real ones once empty. */
const draws = vi.hoisted(() => [] as number[]);
vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  return { ...actual, randomInt: (max: number) => draws.shift() ?? actual.randomInt(max) };
});

const generated = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'gen-', namespace: 'default' } };
const nameOf = (object: JsonObject) => (object.metadata as JsonObject).name;

describe('generateName', () => {
  // Test files share modules (the unit project does not isolate them): load the server afresh so it
  // takes the mocked randomInt.
  let InMemoryApiServer: typeof import('../api-server').InMemoryApiServer;
  beforeAll(async () => {
    vi.resetModules();
    ({ InMemoryApiServer } = await import('../api-server'));
  });

  it('generates another name when the generated one is taken, as Kubernetes does since 1.31', () => {
    const server = new InMemoryApiServer();
    draws.push(...[0, 0, 0, 0, 0], ...[0, 0, 0, 0, 0], ...[1, 1, 1, 1, 1]);
    expect(nameOf(server.create(generated))).toBe('gen-bbbbb');
    expect(nameOf(server.create(generated))).toBe('gen-ccccc');
  });

  it('answers AlreadyExists after eight taken names, and never renames an object named by its creator', () => {
    const server = new InMemoryApiServer();
    draws.push(...Array.from({ length: 45 }, () => 0));
    server.create(generated);
    expect(() => server.create(generated)).toThrow(/"gen-bbbbb" already exists/);
    expect(draws).toEqual([]);
    const named = { ...generated, metadata: { ...generated.metadata, name: 'gen-bbbbb' } };
    expect(() => server.create(named)).toThrow(/already exists/);
  });
});
