import { expect } from 'vitest';
import { parse } from 'yaml';
import type { Policy, PolicyException } from '../policy';
import type { Diagnostic } from '@edict/foundation';

/** A ClusterPolicy (or Policy) from YAML text for the `spec` (indented as under `spec:`). */
export function policyFromYaml(
  spec: string,
  options: { kind?: 'ClusterPolicy' | 'Policy'; metadata?: string } = {},
): Policy {
  const text = [
    'apiVersion: kyverno.io/v1',
    `kind: ${options.kind ?? 'ClusterPolicy'}`,
    'metadata:',
    ...(options.metadata ?? '  name: p').split('\n'),
    'spec:',
    ...spec.split('\n').map((line) => `  ${line}`),
  ].join('\n');
  return parse(text) as Policy;
}

export function exceptionFromYaml(spec: string, namespace = 'kyverno'): PolicyException {
  const text = [
    'apiVersion: kyverno.io/v2',
    'kind: PolicyException',
    'metadata:',
    '  name: e',
    `  namespace: ${namespace}`,
    'spec:',
    ...spec.split('\n').map((l) => `  ${l}`),
  ].join('\n');
  return parse(text) as PolicyException;
}

export const errors = (ds: Diagnostic[]) => ds.filter((d) => d.severity !== 'warning');
export const warnings = (ds: Diagnostic[]) => ds.filter((d) => d.severity === 'warning');

/** Exactly one error, at `path`, whose message contains `message`. */
export function expectOneError(ds: Diagnostic[], path: string, message: string): void {
  const found = errors(ds);
  expect(found.map((d) => `${d.path}: ${d.message}`)).toHaveLength(1);
  expect(found[0]!.path).toBe(path);
  expect(found[0]!.message).toContain(message);
}

export function expectNoErrors(ds: Diagnostic[]): void {
  expect(errors(ds).map((d) => `${d.path}: ${d.message}`)).toEqual([]);
}
