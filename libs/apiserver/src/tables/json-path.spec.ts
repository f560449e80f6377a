import { describe, expect, it } from 'vitest';
import type { JsonObject } from '@edict/foundation';
import { compileJsonPath, firstMatch, MAX_JSON_PATH_LENGTH } from './json-path';

const report: JsonObject = {
  metadata: { name: 'r', labels: { 'audit.kyverno.io/resource.gvr': 'pods.v1' } },
  scope: { kind: 'Pod', name: 'web' },
  summary: { pass: 2, fail: 0 },
  status: {
    conditions: [
      { type: 'Synced', status: 'False', ready: false },
      { type: 'Ready', status: 'True', message: 'ok' },
    ],
  },
  items: [[1, 2], [3]],
};

const evaluate = (path: string) => firstMatch(compileJsonPath(path), report);

describe('printer-column JSONPath', () => {
  it('selects fields, quoted keys with escaped dots, indexes, wildcards and equality filters', () => {
    expect(evaluate('.scope.kind')).toBe('Pod');
    expect(evaluate('.summary.fail')).toBe(0);
    expect(evaluate(".metadata.labels['audit\\.kyverno\\.io/resource\\.gvr']")).toBe('pods.v1');
    expect(evaluate('.metadata.labels["audit.kyverno.io/resource.gvr"]')).toBe('pods.v1');
    expect(evaluate('.metadata.labels.audit\\.kyverno\\.io/resource\\.gvr')).toBe('pods.v1');
    expect(evaluate('.status.conditions[1].type')).toBe('Ready');
    expect(evaluate('.status.conditions[-1].message')).toBe('ok');
    expect(evaluate('.status.conditions[*].type')).toBe('Synced');
    expect(evaluate('.items[*][*]')).toBe(1);
    expect(evaluate('.status.conditions[?(@.type == "Ready")].status')).toBe('True');
    expect(evaluate(".status.conditions[?(@.type=='Ready')].status")).toBe('True');
    expect(evaluate('.status.conditions[?(@.type != "Synced")].message')).toBe('ok');
    expect(evaluate('.status.conditions[?(@.ready == false)].type')).toBe('Synced');
    expect(evaluate('.status.conditions[?(@.message)].type')).toBe('Ready');
    expect(evaluate('.')).toEqual(report);
  });

  it('selects nothing for missing keys, out-of-range indexes and filters without a match', () => {
    expect(evaluate('.spec.size')).toBeUndefined();
    expect(evaluate('.status.conditions[5].type')).toBeUndefined();
    expect(evaluate('.status.conditions[?(@.type == "Gone")].status')).toBeUndefined();
    expect(evaluate('.scope.kind.deeper')).toBeUndefined();
  });

  it('refuses what it does not serve, saying what, and never evaluates it', () => {
    const error = (path: string) => {
      const compiled = compileJsonPath(path);
      expect(firstMatch(compiled, report)).toBeUndefined();
      return 'error' in compiled ? compiled.error : undefined;
    };
    expect(error('..name')).toBe('recursive descent ("..") is not supported');
    expect(error('scope.kind')).toBe('must start with "."');
    expect(error('.items[0:1]')).toMatch(/unsupported selector .* in "\[0:1\]"/);
    expect(error('.status.conditions[?(@.type > 1)]')).toMatch(/unsupported selector/);
    expect(error('.status.conditions[0')).toBe('unclosed "[" at 18');
    expect(error(`.${'a'.repeat(MAX_JSON_PATH_LENGTH)}`)).toBe(`longer than ${MAX_JSON_PATH_LENGTH} characters`);
    expect(error('.a'.repeat(33))).toBe('more than 32 steps');
  });

  it('stays bounded on wide documents', () => {
    const wide = { rows: Array.from({ length: 200 }, () => Array.from({ length: 200 }, (_, i) => i)) };
    expect(firstMatch(compileJsonPath('.rows[*][*]'), wide)).toBe(0);
  });
});
