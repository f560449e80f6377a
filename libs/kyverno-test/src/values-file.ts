import type { JsonValue, KubeObject } from '@edict/foundation';
import { Fields, describe } from './io/fields';
import { readYamlFile } from './io/files';
import { LoadError } from './io/load-error';
import type { PolicyValues, SubresourceMapping, ValuesSpec } from './types';

export const EMPTY_VALUES: ValuesSpec = {
  globalValues: {},
  policies: [],
  namespaceLabels: {},
  namespaces: {},
  subresources: [],
};

/** Reads a Values file (`cli.kyverno.io/v1alpha1` Values, also the looser `Value` kind some tests use). */
export function loadValuesFile(file: string): ValuesSpec {
  const documents = readYamlFile(file);
  if (documents.length === 0) return EMPTY_VALUES;
  if (documents.length > 1)
    throw new LoadError(file, undefined, `expected one Values document, found ${documents.length}`);
  return parseValuesSpec(Fields.of(documents[0].value, file), true);
}

const SPEC_FIELDS = ['globalValues', 'policies', 'namespaceSelector', 'namespaces', 'subresources', 'variables'];

export function parseValuesSpec(values: Fields, isDocument: boolean): ValuesSpec {
  values.rejectUnknown(isDocument ? ['apiVersion', 'kind', 'metadata', ...SPEC_FIELDS] : SPEC_FIELDS);
  const namespaceLabels: ValuesSpec['namespaceLabels'] = {};
  for (const selector of values.objectList('namespaceSelector')) {
    selector.rejectUnknown(['name', 'labels']);
    namespaceLabels[selector.requiredString('name')] = selector.stringMap('labels');
  }
  // Full Namespace objects take precedence over namespaceSelector entries, as in Kyverno.
  const namespaces: Record<string, KubeObject> = {};
  const rawNamespaces = values.raw('namespaces');
  values.objectList('namespaces').forEach((namespace, index) => {
    const metadata = namespace.object('metadata');
    if (!metadata) throw namespace.error('metadata', 'is required');
    const name = metadata.requiredString('name');
    namespaceLabels[name] = metadata.stringMap('labels');
    const object = (rawNamespaces as KubeObject[])[index];
    namespaces[name] = { ...object, apiVersion: object.apiVersion || 'v1', kind: object.kind || 'Namespace' };
  });
  return {
    globalValues: values.map('globalValues') ?? {},
    policies: values.objectList('policies').map(parsePolicyValues),
    namespaceLabels,
    namespaces,
    subresources: values.objectList('subresources').map(parseSubresource),
  };
}

function parsePolicyValues(policy: Fields): PolicyValues {
  policy.rejectUnknown(['name', 'rules', 'resources']);
  return {
    name: policy.requiredString('name'),
    rules: policy.objectList('rules').map((rule) => {
      rule.rejectUnknown(['name', 'values', 'foreachValues']);
      return {
        name: rule.requiredString('name'),
        values: rule.map('values') ?? {},
        foreachValues: foreachValues(rule),
      };
    }),
    resources: policy.objectList('resources').map((resource) => {
      resource.rejectUnknown(['name', 'values']);
      return { name: resource.requiredString('name'), values: resource.map('values') ?? {} };
    }),
  };
}

function foreachValues(rule: Fields): Record<string, JsonValue[]> {
  const raw = rule.map('foreachValues') ?? {};
  const out: Record<string, JsonValue[]> = {};
  for (const [key, list] of Object.entries(raw)) {
    if (!Array.isArray(list)) throw rule.error(`foreachValues.${key}`, `expected a list, got ${describe(list)}`);
    out[key] = list;
  }
  return out;
}

function parseSubresource(entry: Fields): SubresourceMapping {
  const side = (name: 'parentResource' | 'subresource') => {
    const value = entry.object(name);
    if (!value) throw entry.error(name, 'is required');
    return {
      group: value.string('group') ?? '',
      version: value.string('version') ?? '',
      kind: value.requiredString('kind'),
      name: value.string('name') ?? '',
    };
  };
  return { parent: side('parentResource'), subresource: side('subresource') };
}
