import { describe, expect, it } from 'vitest';
import { isExpression, parseExpression } from './expression';

describe('parseExpression', () => {
  it('reads `(expr)` on one line as an expression, and a string spanning lines as a literal (kyverno-json)', () => {
    expect(parseExpression("(conditions[?type == 'Ready'])")).toMatchObject({
      engine: 'jp',
      statement: "conditions[?type == 'Ready']",
    });
    const cel = '(images.containers + images.?ephemeralContainers.orValue([]))\n  .map(image, image != "").all(e, e)';
    expect(isExpression(cel)).toBe(false);
    expect(parseExpression(cel).statement).toBe(cel);
  });
});
