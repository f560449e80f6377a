import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { evaluateKyverno } from '@edict/cel/testing';

describe('gzip library', () => {
  it('compresses and decompresses text', async () => {
    await expect(evaluateKyverno('gzip.decompress(gzip.compress("hello, edict"))')).resolves.toBe('hello, edict');
    const data = new Uint8Array(gzipSync(Buffer.from('from elsewhere')));
    await expect(evaluateKyverno('gzip.decompress(object.data)', {}, {}, { object: { data } })).resolves.toBe(
      'from elsewhere',
    );
  });

  it('compresses deterministically (no modification time)', async () => {
    await expect(evaluateKyverno('gzip.compress("same") == gzip.compress("same")')).resolves.toBe(true);
  });

  it('fails on data that is not gzip, and caps what decompression yields', async () => {
    await expect(evaluateKyverno('gzip.decompress(b"not gzip")')).rejects.toThrow(/gzip.decompress/);
    const bomb = new Uint8Array(gzipSync(Buffer.alloc(4 * 1024 * 1024)));
    await expect(evaluateKyverno('gzip.decompress(object.data)', {}, {}, { object: { data: bomb } })).rejects.toThrow(
      /gzip.decompress/,
    );
  });
});
