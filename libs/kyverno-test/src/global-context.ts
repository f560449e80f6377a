import { compileJmesPath } from '@edict/jmespath';
import type { JsonValue } from '@edict/foundation';
import type { GlobalContextMock } from './types';

/**
 * A mocked GlobalContextEntry's value as Kyverno's store gives it: the whole data for `name`, or a
 * named projection of it (`name.projection` for classic `globalReference`, a projection argument
 * for CEL's `globalContext.Get`). Undefined when the test mocks no such entry or projection.
 */
export function globalContextValue(
  entries: readonly GlobalContextMock[],
  name: string,
  projection = '',
): JsonValue | undefined {
  let entry = entries.find((candidate) => candidate.name === name);
  let projectionName = projection;
  if (!entry && projection === '') {
    // Classic globalReference names address a projection as `entry.projection`.
    const dot = name.indexOf('.');
    if (dot > 0) {
      entry = entries.find((candidate) => candidate.name === name.slice(0, dot));
      projectionName = name.slice(dot + 1);
    }
  }
  if (!entry) return undefined;
  if (projectionName === '') return entry.data;
  const found = entry.projections.find((candidate) => candidate.name === projectionName);
  return found ? compileJmesPath(found.path).search(entry.data) : undefined;
}
