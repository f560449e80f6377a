import { describe, expect, it } from 'vitest';
import { expressionsUseIdentifier } from './identifiers';

describe('expressionsUseIdentifier (what a namespaced policy is refused for at admission)', () => {
  it('finds the identifier wherever it is used', () => {
    expect(expressionsUseIdentifier('http', ['http.Get("https://a.test")'])).toBe(true);
    expect(expressionsUseIdentifier('http', ['object.spec.replicas > 1', 'http.post("https://a.test", {})'])).toBe(
      true,
    );
    expect(expressionsUseIdentifier('http', ['[1].all(x, http.Get("u").ok)'])).toBe(true);
    expect(expressionsUseIdentifier('http', ['{"k": http.Get("u")}'])).toBe(true);
    expect(expressionsUseIdentifier('globalContext', ['globalContext.Get("e", "") != null'])).toBe(true);
  });

  it('ignores strings, fields of the same name, other identifiers and expressions that do not parse', () => {
    expect(expressionsUseIdentifier('http', ["'http.Get is a function'"])).toBe(false);
    expect(expressionsUseIdentifier('http', ['object.spec.http.paths.size() > 0'])).toBe(false);
    expect(expressionsUseIdentifier('http', ['httpx == 1', ''])).toBe(false);
    expect(expressionsUseIdentifier('http', ['http.Get(('])).toBe(false);
    expect(expressionsUseIdentifier('http', [])).toBe(false);
  });
});
