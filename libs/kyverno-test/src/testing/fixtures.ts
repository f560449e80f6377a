import { stringify } from 'yaml';
import type { JsonValue } from '@edict/foundation';

/** YAML text for a list of documents. */
export const yaml = (...documents: JsonValue[]): string =>
  documents.map((d) => stringify(d, { version: '1.1' })).join('---\n');

export function clusterPolicy(
  name: string,
  rules: string[],
  extra: { annotations?: Record<string, string>; action?: string } = {},
) {
  return {
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name, ...(extra.annotations ? { annotations: extra.annotations } : {}) },
    spec: {
      ...(extra.action ? { validationFailureAction: extra.action } : {}),
      rules: rules.map((rule) => ({
        name: rule,
        match: { any: [{ resources: { kinds: ['Pod'] } }] },
        validate: { message: 'no', pattern: { metadata: { labels: { app: '?*' } } } },
      })),
    },
  };
}

export function pod(name: string, namespace?: string, labels?: Record<string, string>) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, ...(namespace ? { namespace } : {}), ...(labels ? { labels } : {}) },
    spec: { containers: [{ name: 'c', image: 'nginx' }] },
  };
}

export function testFile(results: JsonValue[], extra: Record<string, JsonValue> = {}) {
  return {
    apiVersion: 'cli.kyverno.io/v1alpha1',
    kind: 'Test',
    metadata: { name: 'a-test' },
    policies: ['policy.yaml'],
    resources: ['resources.yaml'],
    results,
    ...extra,
  };
}
