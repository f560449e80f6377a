import { describe, expect, it } from 'vitest';
import { evaluateKyverno } from '@edict/cel/testing';

describe('transform library', () => {
  it('pairs two lists of objects into a map', async () => {
    const object = {
      keys: [{ name: 'a' }, { name: 'b' }],
      values: [{ image: 'nginx' }, { image: 'redis' }],
    };
    await expect(
      evaluateKyverno('listObjToMap(object.keys, object.values, "name", "image")', {}, {}, { object }),
    ).resolves.toEqual({
      a: 'nginx',
      b: 'redis',
    });
    await expect(
      evaluateKyverno('transform.listObjToMap(object.keys, object.values, "name", "image")["b"]', {}, {}, { object }),
    ).resolves.toBe('redis');
  });

  it('refuses lists of different lengths and keys that are not strings', async () => {
    await expect(evaluateKyverno('listObjToMap([{"k": "a"}], [], "k", "v")')).rejects.toThrow(/lists of equal length/);
    await expect(evaluateKyverno('listObjToMap([{"k": 1}], [{"v": 2}], "k", "v")')).rejects.toThrow(
      /cannot be handled as a string/,
    );
  });
});
