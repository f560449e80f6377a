import { describe, expect, it } from 'vitest';
import { evaluateKyverno } from '@edict/cel/testing';

describe('regex.replace', () => {
  it('replaces every match, with \\N naming capture groups', async () => {
    await expect(
      evaluateKyverno(`regex.replace("docker.io/nginx:latest", "^docker\\\\.io/(.*)", r'myregistry.io/\\1')`),
    ).resolves.toBe('myregistry.io/nginx:latest');
    await expect(evaluateKyverno(`regex.replace("a-b-c", "-", "+")`)).resolves.toBe('a+b+c');
    await expect(evaluateKyverno(`regex.replace("a-b-c", "-", "\\\\\\\\")`)).resolves.toBe('a\\b\\c');
  });

  it('stops after count replacements (negative: all, 0: none)', async () => {
    await expect(evaluateKyverno(`regex.replace("a-b-c", "-", "+", 1)`)).resolves.toBe('a+b-c');
    await expect(evaluateKyverno(`regex.replace("a-b-c", "-", "+", 0)`)).resolves.toBe('a-b-c');
    await expect(evaluateKyverno(`regex.replace("a-b-c", "-", "+", -1)`)).resolves.toBe('a+b+c');
  });

  it('refuses a replacement naming a group the pattern lacks, and a bad escape', async () => {
    await expect(evaluateKyverno(`regex.replace("abc", "b", r'\\1')`)).rejects.toThrow(/capture group/);
    await expect(evaluateKyverno(`regex.replace("abc", "b", r'\\x')`)).rejects.toThrow(/invalid replacement/);
  });
});

describe('regex.extract and regex.extractAll', () => {
  it('answers the match, or the only capture group', async () => {
    await expect(evaluateKyverno(`regex.extract("id: 42", "[0-9]+").value()`)).resolves.toBe('42');
    await expect(evaluateKyverno(`regex.extract("id: 42", "id: ([0-9]+)").value()`)).resolves.toBe('42');
    await expect(evaluateKyverno(`regex.extract("none", "[0-9]+").hasValue()`)).resolves.toBe(false);
    await expect(evaluateKyverno(`regex.extractAll("a1 b2 c3", "[a-z]([0-9])")`)).resolves.toEqual(['1', '2', '3']);
  });

  it('refuses more than one capture group', async () => {
    await expect(evaluateKyverno(`regex.extract("ab", "(a)(b)")`)).rejects.toThrow(/more than one capturing group/);
  });
});
