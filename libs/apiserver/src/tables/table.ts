/**
 * `meta.k8s.io` Table responses, as kube-apiserver serves them to `kubectl get`: which requests ask
 * for one (the Accept header), and the Table itself, with each row's object as `includeObject` says.
 */
import { isObject, type JsonObject } from '@edict/foundation';
import type { ResourceType } from '../registry/resource-type';
import { badRequest, notAcceptable } from '../status';
import { builtinPrinter } from './builtin-printers';
import type { TablePrinter } from './columns';
import { customPrinter } from './custom-printer';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export interface TableRequest {
  /** `meta.k8s.io/v1` or `meta.k8s.io/v1beta1`: the Table's apiVersion, as asked for. */
  readonly apiVersion: string;
  readonly includeObject: IncludeObject;
}

const TABLE_VERSIONS = ['v1', 'v1beta1'];
const INCLUDE_OBJECT: readonly string[] = ['None', 'Metadata', 'Object'];

/**
 * The Table a request asks for, or `undefined` for the plain object (or a PartialObjectMetadata
 * form, see `requestedRepresentation`).
 */
export function tableRequest(accept: string | undefined, query: URLSearchParams): TableRequest | undefined {
  const representation = requestedRepresentation(accept, query);
  return representation?.as === 'Table' ? representation.table : undefined;
}

/** `PartialObjectMetadata` (an object, or each watch event's) or `PartialObjectMetadataList` (a list). */
export interface PartialMetadataRequest {
  readonly as: 'PartialObjectMetadata' | 'PartialObjectMetadataList';
  /** `meta.k8s.io/v1` or `meta.k8s.io/v1beta1`, as asked for. */
  readonly apiVersion: string;
}

export type Representation = { readonly as: 'Table'; readonly table: TableRequest } | PartialMetadataRequest;

const META_VERSIONS = ['v1', 'v1beta1'];
const PARTIAL_TARGETS: readonly string[] = ['PartialObjectMetadata', 'PartialObjectMetadataList'];

/**
 * The representation a request asks for, or `undefined` for the plain object. The Accept header's
 * media ranges are tried by preference (`q`, then order): the first that is a conversion this
 * server serves (a Table, PartialObjectMetadata or its List, in JSON), or a plain type, decides. A
 * header that names only conversions this server lacks (other `as=` targets, other encodings)
 * answers 406, as kube-apiserver does.
 */
export function requestedRepresentation(
  accept: string | undefined,
  query: URLSearchParams,
): Representation | undefined {
  if (!accept) return undefined;
  const ranges = accept
    .split(',')
    .map((range, index) => ({ ...parseRange(range), index }))
    .filter((range) => range.mediaType !== '' && range.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  if (ranges.length === 0) return undefined;
  for (const range of ranges) {
    const target = range.params.get('as');
    if (target === undefined) return undefined;
    const json = range.mediaType === 'application/json' || range.mediaType === '*/*';
    const version = range.params.get('v') ?? '';
    if (!json || range.params.get('g') !== 'meta.k8s.io' || !META_VERSIONS.includes(version)) continue;
    if (target === 'Table' && TABLE_VERSIONS.includes(version)) {
      return { as: 'Table', table: { apiVersion: `meta.k8s.io/${version}`, includeObject: includeObjectOf(query) } };
    }
    if (PARTIAL_TARGETS.includes(target)) {
      return { as: target as PartialMetadataRequest['as'], apiVersion: `meta.k8s.io/${version}` };
    }
  }
  throw notAcceptable(
    `none of the requested media types can be served: ${accept.slice(0, 200)} (served: application/json, as=Table, PartialObjectMetadata or PartialObjectMetadataList;g=meta.k8s.io;v=v1 or v1beta1)`,
  );
}

function parseRange(range: string): { mediaType: string; params: Map<string, string>; q: number } {
  const [mediaType = '', ...parameters] = range.split(';').map((part) => part.trim());
  const params = new Map<string, string>();
  for (const parameter of parameters) {
    const equals = parameter.indexOf('=');
    if (equals > 0) params.set(parameter.slice(0, equals).trim().toLowerCase(), parameter.slice(equals + 1).trim());
  }
  const q = params.has('q') ? Number(params.get('q')) : 1;
  params.delete('q');
  return { mediaType: mediaType.toLowerCase(), params, q: Number.isFinite(q) ? q : 0 };
}

function includeObjectOf(query: URLSearchParams): IncludeObject {
  const value = query.get('includeObject') ?? 'Metadata';
  if (!INCLUDE_OBJECT.includes(value)) {
    throw badRequest(
      `Unable to convert to Table as requested: includeObject: Unsupported value: ${JSON.stringify(value)}: supported values: "Metadata", "None", "Object"`,
    );
  }
  return value as IncludeObject;
}

const printers = new WeakMap<ResourceType, TablePrinter & { problems: readonly string[] }>();

/** The type's printer: built once per served type (a CRD change installs new types). */
export function printerFor(type: ResourceType): TablePrinter & { problems: readonly string[] } {
  let printer = printers.get(type);
  if (!printer) {
    printer = type.builtin
      ? { ...builtinPrinter(type.group, type.plural), problems: [] }
      : customPrinter(type.printerColumns ?? []);
    printers.set(type, printer);
  }
  return printer;
}

export interface TableOptions {
  /** Without, the columnDefinitions are left out (watch events after the first). */
  readonly headers: boolean;
  readonly now: number;
}

/** A Table of `objects` (served in `type`'s version, with kind and apiVersion) and list metadata. */
export function toTable(
  type: ResourceType,
  objects: readonly JsonObject[],
  metadata: JsonObject,
  request: TableRequest,
  options: TableOptions,
): JsonObject {
  const printer = printerFor(type);
  return {
    kind: 'Table',
    apiVersion: request.apiVersion,
    metadata,
    columnDefinitions: options.headers ? (printer.columns as unknown as JsonObject[]) : null,
    rows: objects.map((object) => ({
      cells: printer.cells(object, options.now),
      object: rowObject(object, request),
    })),
  };
}

function rowObject(object: JsonObject, request: TableRequest): JsonObject | null {
  switch (request.includeObject) {
    case 'None':
      return null;
    case 'Object':
      return object;
    case 'Metadata':
      return {
        kind: 'PartialObjectMetadata',
        apiVersion: request.apiVersion,
        metadata: isObject(object.metadata) ? object.metadata : {},
      };
  }
}
