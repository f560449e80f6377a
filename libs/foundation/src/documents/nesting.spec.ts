import { describe, expect, it } from 'vitest';
import { parseDocuments } from './documents';
import { deepFlowNesting, deepValuePath, MAX_NESTING_DEPTH } from './nesting';

describe('nesting depth', () => {
  it('finds where flow brackets first nest past the limit, with document and line', () => {
    expect(deepFlowNesting('[[[]]]', 3)).toBeUndefined();
    expect(deepFlowNesting('a: 1\n---\nb: [[\n[[]]]]', 3)).toEqual({ document: 1, line: 4 });
  });

  it('does not count brackets in quoted scalars or comments, and never goes below zero', () => {
    const quoted = `a: "[[[[\\"[[[["\nb: '{{{{''{{{{'\nc: x # [[[[[[[[\n`;
    expect(deepFlowNesting(quoted, 2)).toBeUndefined();
    expect(deepFlowNesting(']]]]]][[', 2)).toBeUndefined();
    // An apostrophe inside a plain scalar does not open a quote.
    expect(deepFlowNesting("a: it's [[[", 2)).toEqual({ document: 0, line: 1 });
  });

  it('names the path where a value nests past the limit', () => {
    expect(deepValuePath({ a: [{ b: 1 }] }, 3)).toBeUndefined();
    expect(deepValuePath({ a: [{ b: { c: 1 } }] }, 3)).toBe('a[0].b');
    expect(deepValuePath([[1]], 1)).toBe('[0]');
  });

  it('turns deep documents into plain diagnostics, before parsing flow nesting', () => {
    const flow = parseDocuments(`${'['.repeat(100_000)}${']'.repeat(100_000)}`, 'deep.json');
    expect(flow.documents).toEqual([]);
    expect(flow.errors).toEqual([
      { file: 'deep.json', document: 0, line: 1, message: `nesting deeper than ${MAX_NESTING_DEPTH} levels` },
    ]);
    // Block nesting past what the YAML parser's stack holds.
    const lines = Array.from({ length: 1500 }, (_, i) => `${' '.repeat(i)}a:`);
    const block = parseDocuments(`${lines.join('\n')} 1`, 'deep.yaml');
    expect(block.documents).toEqual([]);
    // Whether the parser's stack runs out first or the walk after parsing finds the depth (with a path)
    // depends on how warm the process is: either way it is the nesting diagnostic.
    expect(block.errors.length).toBeGreaterThan(0);
    for (const { message } of block.errors)
      expect(message.startsWith(`nesting deeper than ${MAX_NESTING_DEPTH} levels`), message).toBe(true);
  });

  it('keeps documents nested up to the limit', () => {
    const text = `${'['.repeat(MAX_NESTING_DEPTH)}${']'.repeat(MAX_NESTING_DEPTH)}`;
    const parsed = parseDocuments(text, 'ok.json');
    expect(parsed.errors).toEqual([]);
    expect(parsed.documents).toHaveLength(1);
  });
});
