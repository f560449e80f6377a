import type { JsonObject } from '@edict/foundation';

/** What the server knows about one served resource: enough for REST routing, discovery and OpenAPI. */
export interface ResourceType {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly listKind: string;
  /** The plural, lower-case resource name used in URLs (`pods`). */
  readonly plural: string;
  readonly singular: string;
  readonly namespaced: boolean;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  readonly verbs: readonly string[];
  /** Served subresources (`status`, `scale`, `exec`...): see `resources/subresources.ts`. */
  readonly subresources: readonly string[];
  /** Whether `metadata.generation` is kept and bumped on changes outside metadata and status. */
  readonly tracksGeneration: boolean;
  /** Built-in types accept strategic merge patches; custom resources answer 415. */
  readonly builtin: boolean;
  /** Field-selector fields beyond `metadata.name` and `metadata.namespace`, by dotted path. */
  readonly selectableFields: readonly string[];
  /** A custom resource version's `openAPIV3Schema`: its defaults and checks apply to every write. */
  readonly schema?: JsonObject;
  /** A custom resource version's `additionalPrinterColumns` (Table responses); built-ins have printers. */
  readonly printerColumns?: readonly PrinterColumn[];
  /** A deprecated custom resource version: the warning every request to it is answered with. */
  readonly deprecationWarning?: string;
}

/** One `additionalPrinterColumns` entry of a CRD version. */
export interface PrinterColumn {
  readonly name: string;
  readonly type: string;
  readonly format: string;
  readonly description: string;
  readonly priority: number;
  readonly jsonPath: string;
}

export const STANDARD_VERBS: readonly string[] = [
  'create',
  'delete',
  'deletecollection',
  'get',
  'list',
  'patch',
  'update',
  'watch',
];

/** `v1` for the core group, `apps/v1` otherwise. */
export function apiVersionOf(type: Pick<ResourceType, 'group' | 'version'>): string {
  return type.group ? `${type.group}/${type.version}` : type.version;
}

/** The key that identifies a resource across versions: `apps/deployments`, `/pods`. */
export function groupResourceKey(group: string, plural: string): string {
  return `${group}/${plural}`;
}
