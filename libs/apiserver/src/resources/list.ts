/** List options: selectors, and `limit`/`continue` paging with kube's token format and errors. */
import type { JsonObject } from '@edict/foundation';
import type { ResourceType } from '../registry/resource-type';
import { matchesFields, parseFieldSelector, type FieldRequirement } from '../selectors/field-selector';
import { matchesLabels, parseLabelSelector, type LabelRequirement } from '../selectors/label-selector';
import { ApiError, badRequest } from '../status';
import { metadataOf } from './prepare';

export interface ListOptions {
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly limit?: number;
  readonly continue?: string;
}

/** A compiled selector pair: parse once, test many objects (watches test every event). */
export interface ObjectFilter {
  readonly labels: readonly LabelRequirement[];
  readonly fields: readonly FieldRequirement[];
}

export function compileFilter(type: ResourceType, options: ListOptions): ObjectFilter {
  return {
    labels: parseLabelSelector(options.labelSelector ?? ''),
    fields: parseFieldSelector(options.fieldSelector ?? '', type.selectableFields),
  };
}

export function matchesFilter(filter: ObjectFilter, object: JsonObject): boolean {
  if (
    filter.labels.length > 0 &&
    !matchesLabels(filter.labels, metadataOf(object).labels as Record<string, unknown> | undefined)
  ) {
    return false;
  }
  return filter.fields.length === 0 || matchesFields(filter.fields, object);
}

interface ContinueToken {
  readonly v: string;
  readonly rv: number;
  readonly start: string;
}

export function encodeContinue(resourceVersion: number, lastKey: string): string {
  const token: ContinueToken = { v: 'meta.k8s.io/v1', rv: resourceVersion, start: `${lastKey}\u0000` };
  return Buffer.from(JSON.stringify(token)).toString('base64url');
}

export function decodeContinue(token: string): ContinueToken {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as Partial<ContinueToken>;
    if (parsed.v !== 'meta.k8s.io/v1' || typeof parsed.rv !== 'number' || typeof parsed.start !== 'string')
      throw new Error('bad');
    return parsed as ContinueToken;
  } catch {
    throw badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
}

export function continueExpired(): ApiError {
  return new ApiError(
    410,
    'Expired',
    'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
  );
}

export function objectKeyOf(object: JsonObject): string {
  const metadata = metadataOf(object);
  return `${(metadata.namespace as string | undefined) ?? ''}/${String(metadata.name)}`;
}
