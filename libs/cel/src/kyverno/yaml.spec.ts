import { describe, expect, it } from 'vitest';
import { evaluateKyverno } from '@edict/cel/testing';

describe('yaml library', () => {
  it('parses the first YAML document into maps and lists (numbers are doubles)', async () => {
    const object = { data: { values: 'replicas: 3\nimages:\n  - nginx\n  - redis\n---\nsecond: true\n' } };
    await expect(evaluateKyverno('yaml.parse(object.data.values)', {}, {}, { object })).resolves.toEqual({
      replicas: 3,
      images: ['nginx', 'redis'],
    });
    await expect(evaluateKyverno('yaml.parse(object.data.values).replicas == 3.0', {}, {}, { object })).resolves.toBe(
      true,
    );
  });

  it('reads YAML 1.1 scalars as Kubernetes does (yes is true, timestamps stay strings)', async () => {
    await expect(evaluateKyverno('yaml.parse("a: yes\\nb: 2024-01-01")')).resolves.toEqual({
      a: true,
      b: '2024-01-01',
    });
  });

  it('fails on malformed YAML with a yaml: message', async () => {
    await expect(evaluateKyverno('yaml.parse("a: [1, 2")')).rejects.toThrow(/^yaml: /);
  });
});
