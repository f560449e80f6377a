import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeTree } from './testing/temp-tree';
import { loadValuesFile } from './values-file';

describe('loadValuesFile', () => {
  it('reads global, policy, rule and resource values, namespace labels and subresources', () => {
    const dir = writeTree({
      'values.yaml': `apiVersion: cli.kyverno.io/v1alpha1
kind: Values
globalValues:
  request.operation: UPDATE
policies:
- name: p
  rules:
  - name: r
    values:
      count: "4"
    foreachValues:
      image: [a, b]
  resources:
  - name: pod-a
    values:
      request.operation: DELETE
namespaceSelector:
- name: team
  labels:
    env: prod
namespaces:
- apiVersion: v1
  kind: Namespace
  metadata:
    name: team
    labels:
      env: staging
subresources:
- parentResource: {group: apps, version: v1, kind: Deployment, name: deployments}
  subresource: {group: autoscaling, version: v1, kind: Scale, name: deployments/scale}
`,
    });
    const values = loadValuesFile(join(dir, 'values.yaml'));
    expect(values.globalValues).toEqual({ 'request.operation': 'UPDATE' });
    expect(values.policies[0]).toEqual({
      name: 'p',
      rules: [{ name: 'r', values: { count: '4' }, foreachValues: { image: ['a', 'b'] } }],
      resources: [{ name: 'pod-a', values: { 'request.operation': 'DELETE' } }],
    });
    // Full Namespace objects win over namespaceSelector entries.
    expect(values.namespaceLabels).toEqual({ team: { env: 'staging' } });
    expect(values.subresources[0].subresource.kind).toBe('Scale');
  });

  it('names file and field for bad entries', () => {
    const dir = writeTree({
      'a.yaml': 'policies:\n- name: p\n  rules:\n  - name: r\n    foreachValues:\n      x: 1\n',
      'b.yaml': 'namespaceSelector:\n- labels: {a: b}\n',
      'c.yaml': 'globalvalue: {}\n',
      'd.yaml': 'namespaceSelector:\n- name: ns1\n  labels: {a: 1}\n',
    });
    expect(() => loadValuesFile(join(dir, 'a.yaml'))).toThrow(
      'a.yaml: policies[0].rules[0].foreachValues.x: expected a list, got number 1',
    );
    expect(() => loadValuesFile(join(dir, 'b.yaml'))).toThrow('b.yaml: namespaceSelector[0].name: is required');
    expect(() => loadValuesFile(join(dir, 'c.yaml'))).toThrow('c.yaml: globalvalue: unknown field');
    expect(() => loadValuesFile(join(dir, 'd.yaml'))).toThrow(
      'd.yaml: namespaceSelector[0].labels.a: expected a string, got number 1',
    );
  });
});
