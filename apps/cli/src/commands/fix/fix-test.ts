/**
 * The fixes `kyverno fix test` makes to a test file, and to its user info and values files
 * (`cmd/cli/kubectl-kyverno/fix`): each returns the fixed copy and the warnings it printed, or an error.
 */
import { isObject, type JsonObject, type JsonValue } from '@edict/foundation';

export interface Fixed {
  readonly fixed: JsonObject;
  readonly messages: string[];
  readonly error?: string;
}

const text = (value: JsonValue | undefined): string => (typeof value === 'string' ? value : '');
const strings = (value: JsonValue | undefined): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
const unique = (list: readonly string[]) => [...new Set(list)];

/** `apiVersion` and `kind` set when missing (user info and values files). */
function fixTypeMeta(file: JsonObject, kind: string): Fixed {
  const fixed = structuredClone(file);
  const messages: string[] = [];
  if (!text(fixed.apiVersion)) {
    messages.push('api version is not set, setting `cli.kyverno.io/v1alpha1`');
    fixed.apiVersion = 'cli.kyverno.io/v1alpha1';
  }
  if (!text(fixed.kind)) {
    messages.push(`kind is not set, setting \`${kind}\``);
    fixed.kind = kind;
  }
  return { fixed, messages };
}

export const fixUserInfo = (file: JsonObject) => fixTypeMeta(file, 'UserInfo');
export const fixValues = (file: JsonObject) => fixTypeMeta(file, 'Values');

/** The fields of a result that sort results, in order, after which come its resources. */
const ORDER = ['policy', 'rule', 'result', 'kind', 'patchedResource', 'generatedResource', 'cloneSourceResource'];

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function compareResults(a: JsonObject, b: JsonObject): number {
  for (const field of ORDER) {
    const order = compare(text(a[field]), text(b[field]));
    if (order !== 0) return order;
  }
  // Kyverno sorts both results' resources in place when it gets this far.
  const ra = strings(a.resources).sort(compare);
  const rb = strings(b.resources).sort(compare);
  a.resources = ra;
  b.resources = rb;
  if (ra.length !== rb.length) return ra.length - rb.length;
  for (let i = 0; i < ra.length; i++) {
    const order = compare(ra[i], rb[i]);
    if (order !== 0) return order;
  }
  return 0;
}

/** The result without its resources, as a key: results equal but for their resources merge when compressed. */
function baseKey(result: JsonObject): string {
  const { resources: _resources, ...base } = result;
  return JSON.stringify(Object.entries(base).sort(([x], [y]) => compare(x, y)));
}

/** A global context entry with no data (missing, null or blank). */
function hasNoData(entry: JsonObject): boolean {
  const data = entry.data;
  return data === undefined || data === null || (typeof data === 'string' && data.trim() === '');
}

/**
 * The test moved to the current format: `apiVersion`/`kind` set, `name` into `metadata.name`, each
 * result's `resource` into `resources` (duplicates dropped), `namespace` into the policy name
 * (`<namespace>/<policy>`), `status` into `result`; with `compress`, results equal but for their
 * resources merged; the results sorted.
 */
export function fixTest(test: JsonObject, compress: boolean): Fixed {
  const fixed = structuredClone(test);
  const messages: string[] = [];
  if (!text(fixed.apiVersion)) {
    messages.push('api version is not set, setting `cli.kyverno.io/v1alpha1`');
    fixed.apiVersion = 'cli.kyverno.io/v1alpha1';
  }
  if (!text(fixed.kind)) {
    messages.push('kind is not set, setting `Test`');
    fixed.kind = 'Test';
  }
  if (text(fixed.name)) {
    messages.push('name is deprecated, moving it into `metadata.name`');
    fixed.metadata = { ...(isObject(fixed.metadata) ? fixed.metadata : {}), name: fixed.name };
    delete fixed.name;
  }
  if (strings(fixed.policies).length === 0) messages.push('test has no policies');
  if (strings(fixed.resources).length === 0) messages.push('test has no resources');
  for (const entry of Array.isArray(fixed.globalContextEntries) ? fixed.globalContextEntries : []) {
    if (isObject(entry) && hasNoData(entry)) {
      messages.push(`global context entry ${JSON.stringify(text(entry.name))} has no data source`);
    }
  }
  let results: JsonObject[] = [];
  const list = Array.isArray(fixed.results) ? fixed.results : [];
  for (const [index, item] of list.entries()) {
    if (!isObject(item)) return { fixed, messages, error: `results[${index}]: expected an object` };
    const result = { ...item };
    const resource = text(result.resource);
    if (resource && strings(result.resources).length > 0) {
      messages.push('test result should not use both `resource` and `resources` fields');
    }
    if (resource) {
      messages.push('test result uses deprecated `resource` field, moving it into the `resources` field');
      result.resources = [...strings(result.resources), resource];
      delete result.resource;
    }
    if ('resource' in result && !resource) delete result.resource;
    const resources = strings(result.resources);
    if (new Set(resources).size !== resources.length) {
      messages.push('test results contains duplicate resources');
      result.resources = unique(resources);
    }
    const namespace = text(result.namespace);
    if (namespace) {
      messages.push(
        'test result uses deprecated `namespace` field, replacing `policy` with a `<namespace>/<name>` pattern',
      );
      result.policy = `${namespace}/${text(result.policy)}`;
      delete result.namespace;
    }
    const status = text(result.status);
    if (status && text(result.result)) {
      return { fixed, messages, error: 'test result should not use both `status` and `result` fields' };
    }
    if (status) {
      messages.push('test result uses deprecated `status` field, moving it into the `result` field');
      result.result = status;
      delete result.status;
    }
    results.push(result);
  }
  if (compress) {
    const groups = new Map<string, { base: JsonObject; resources: string[] }>();
    for (const result of results) {
      const key = baseKey(result);
      const group = groups.get(key) ?? { base: result, resources: [] };
      group.resources.push(...strings(result.resources));
      groups.set(key, group);
    }
    results = [...groups.values()].map(({ base, resources }) => {
      if (new Set(resources).size !== resources.length) messages.push('test results contains duplicate resources');
      const { resources: _resources, ...rest } = base;
      return resources.length > 0 || 'resources' in base ? { ...rest, resources: unique(resources) } : rest;
    });
  }
  results.sort(compareResults);
  if (results.length > 0 || 'results' in fixed) fixed.results = results;
  return { fixed, messages };
}
