import { describe, expect, it } from 'vitest';
import { evaluateKyverno } from '@edict/cel/testing';

describe('math.round', () => {
  it('rounds a double to the given number of decimal places', async () => {
    await expect(evaluateKyverno('math.round(3.14159, 2)')).resolves.toBe(3.14);
    await expect(evaluateKyverno('math.round(2.5, 0)')).resolves.toBe(3);
    await expect(evaluateKyverno('math.round(1234.5, -2)')).resolves.toBe(1200);
  });

  it('rounds halves away from zero, as Go does', async () => {
    await expect(evaluateKyverno('math.round(-2.5, 0)')).resolves.toBe(-3);
    await expect(evaluateKyverno('math.round(-0.125, 2)')).resolves.toBe(-0.13);
  });

  it('takes a double and an int only (type-checked)', async () => {
    await expect(evaluateKyverno('math.round(3, 2)')).rejects.toThrow(/no matching overload/);
  });
});
