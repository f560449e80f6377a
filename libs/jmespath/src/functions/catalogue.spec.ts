import { describe, expect, it } from 'vitest';
import { functionCatalogue, describedStandardFunctions } from './catalogue';
import { registeredSignatures } from '../runtime';
import { kyvernoFunctionNames } from './register';

/** The custom functions Kyverno registers (the names in its pkg/engine/jmespath sources). */
const KYVERNO_FUNCTIONS = [
  'compare',
  'equal_fold',
  'replace',
  'replace_all',
  'to_upper',
  'to_lower',
  'trim',
  'trim_prefix',
  'split',
  'regex_replace_all',
  'regex_replace_all_literal',
  'regex_match',
  'pattern_match',
  'label_match',
  'to_boolean',
  'add',
  'sum',
  'subtract',
  'multiply',
  'divide',
  'modulo',
  'round',
  'base64_decode',
  'base64_encode',
  'time_since',
  'time_now',
  'time_now_utc',
  'path_canonicalize',
  'truncate',
  'semver_compare',
  'parse_json',
  'parse_yaml',
  'lookup',
  'items',
  'object_from_lists',
  'random',
  'x509_decode',
  'time_to_cron',
  'time_add',
  'time_parse',
  'time_utc',
  'time_diff',
  'time_before',
  'time_after',
  'time_between',
  'time_truncate',
  'image_normalize',
];

/** The functions of the JMESPath specification. */
const STANDARD_FUNCTIONS = [
  'abs',
  'avg',
  'ceil',
  'contains',
  'ends_with',
  'floor',
  'join',
  'keys',
  'length',
  'map',
  'max',
  'max_by',
  'merge',
  'min',
  'min_by',
  'not_null',
  'reverse',
  'sort',
  'sort_by',
  'starts_with',
  'sum',
  'to_array',
  'to_number',
  'to_string',
  'type',
  'values',
];

describe('the function catalogue (jp function)', () => {
  const catalogue = functionCatalogue();
  const listed = catalogue.map((entry) => entry.name).sort();

  it('lists exactly the functions the runtime can call', () => {
    expect(listed).toEqual([...registeredSignatures().keys()].sort());
    expect(new Set(listed).size).toBe(listed.length);
  });

  it('describes no standard function the runtime lacks', () => {
    const registered = registeredSignatures();
    expect(describedStandardFunctions().filter((name) => !registered.has(name))).toEqual([]);
  });

  it("lists all of Kyverno's custom functions and the standard ones", () => {
    expect(KYVERNO_FUNCTIONS.filter((name) => !listed.includes(name))).toEqual([]);
    expect(STANDARD_FUNCTIONS.filter((name) => !listed.includes(name))).toEqual([]);
    expect(KYVERNO_FUNCTIONS.filter((name) => !kyvernoFunctionNames().includes(name))).toEqual([]);
  });

  it('gives every function a note and a return type', () => {
    for (const entry of catalogue) {
      expect(entry.note, entry.name).not.toBe('');
      expect(entry.returns.length, entry.name).toBeGreaterThan(0);
    }
  });

  it("takes arguments from the definitions: Kyverno's where Kyverno replaced a standard function", () => {
    const entry = (name: string) => catalogue.find((e) => e.name === name);
    expect(entry('items')).toMatchObject({
      arguments: [['object', 'array'], ['string'], ['string']],
      returns: ['array'],
    });
    expect(entry('regex_match')).toMatchObject({ arguments: [['string'], ['string', 'number']], returns: ['bool'] });
    expect(entry('time_now')).toMatchObject({ arguments: [], returns: ['string'] });
    expect(entry('map')).toMatchObject({ arguments: [['expref'], ['array']] });
    expect(entry('compare')?.note).toBe('compares two strings lexicographically');
  });
});
