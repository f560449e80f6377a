import { compileJmesPath } from '@edict/jmespath';
import { isObject, type JsonValue } from '@edict/foundation';
import type { GlobalContextMock } from './types';

/**
 * A mocked GlobalContextEntry's value as Kyverno's CLI serves it: the entry's data, narrowed by its
 * `fieldPath`, and when it has projections only those, as a map of projection name to the value of
 * its JMESPath over the data. `projection` (CEL's `globalContext.Get(name, projection)`) picks one
 * key of that value; a classic `globalReference` may also name it as `entry.projection`. Undefined
 * when the test mocks no such entry.
 */
export function globalContextValue(
  entries: readonly GlobalContextMock[],
  name: string,
  projection = '',
): JsonValue | undefined {
  let entry = entries.find((candidate) => candidate.name === name);
  let key = projection;
  if (!entry && projection === '' && name.includes('.')) {
    const dot = name.indexOf('.');
    entry = entries.find((candidate) => candidate.name === name.slice(0, dot));
    key = name.slice(dot + 1);
  }
  if (!entry) return undefined;
  const value = entryValue(entry);
  if (key === '') return value;
  return isObject(value) ? (value[key] ?? null) : null;
}

function entryValue(entry: GlobalContextMock): JsonValue {
  const root = entry.fieldPath ? compileJmesPath(entry.fieldPath).search(entry.data) : entry.data;
  if (entry.projections.length === 0) return root;
  return Object.fromEntries(entry.projections.map(({ name, path }) => [name, compileJmesPath(path).search(root)]));
}
