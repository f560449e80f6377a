import { describe, expect, it } from 'vitest';
import { evaluateKyverno } from '@edict/cel/testing';

describe('random library', () => {
  it('makes 8 characters of [0-9a-z] by default, under both names', async () => {
    expect(await evaluateKyverno('random()')).toMatch(/^[0-9a-z]{8}$/);
    expect(await evaluateKyverno('random.random()')).toMatch(/^[0-9a-z]{8}$/);
  });

  it('makes a string matching a pattern', async () => {
    for (let i = 0; i < 20; i++) {
      expect(await evaluateKyverno('random("[A-Z]{3}-[0-9]{2,4}")')).toMatch(/^[A-Z]{3}-[0-9]{2,4}$/);
      expect(await evaluateKyverno('random.random("(dev|prod)-[a-f]+")')).toMatch(/^(dev|prod)-[a-f]{1,11}$/);
    }
  });

  it('refuses invalid, too long and too generous patterns', async () => {
    await expect(evaluateKyverno('random("[a-")')).rejects.toThrow();
    await expect(evaluateKyverno(`random("${'a'.repeat(1025)}")`)).rejects.toThrow(/longer than 1024/);
    // 70 × 1,000 characters: short to write, too long to make.
    await expect(evaluateKyverno(`random("${'[a-z]{1000}'.repeat(70)}")`)).rejects.toThrow(/more than the/);
  });
});
