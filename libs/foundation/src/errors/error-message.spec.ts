import { describe, expect, it } from 'vitest';
import { errorMessage } from './error-message';

describe('errorMessage', () => {
  it("is an Error's message, without its name or stack", () => {
    expect(errorMessage(new TypeError('bad input'))).toBe('bad input');
  });

  it('is the text of anything else thrown', () => {
    expect(errorMessage('plain text')).toBe('plain text');
    expect(errorMessage(42)).toBe('42');
    expect(errorMessage(undefined)).toBe('undefined');
    expect(errorMessage({ message: 'not an Error' })).toBe('[object Object]');
  });
});
