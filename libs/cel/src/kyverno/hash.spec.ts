import { describe, expect, it } from 'vitest';
import { evaluateKyverno } from '@edict/cel/testing';

// Digests of "edict" computed with coreutils (sha1sum, sha256sum, md5sum).
const SHA1 = 'bb139a7c1bc2d73f93f86caa54d7a5452190844d';
const SHA256 = '3da0dae9a5398df087ee4f782e789cf866d9cc6692486b2bb2cebbe76a4fe8d4';
const MD5 = 'bce6d8f37b1f7c30ce37b0f627f2b9c9';

describe('hash library', () => {
  it('hashes UTF-8 text to lower-case hex, under both names', async () => {
    await expect(evaluateKyverno('sha1("edict")')).resolves.toBe(SHA1);
    await expect(evaluateKyverno('hash.sha1("edict")')).resolves.toBe(SHA1);
    await expect(evaluateKyverno('sha256("edict")')).resolves.toBe(SHA256);
    await expect(evaluateKyverno('hash.sha256("edict")')).resolves.toBe(SHA256);
    await expect(evaluateKyverno('md5("edict")')).resolves.toBe(MD5);
    await expect(evaluateKyverno('hash.md5("edict")')).resolves.toBe(MD5);
  });

  it('hashes non-ASCII text as UTF-8 bytes', async () => {
    // printf 'é' | md5sum
    await expect(evaluateKyverno('md5("é")')).resolves.toBe('66ddcd97cfdeabb2f6fb8a999b4bc76f');
  });
});
