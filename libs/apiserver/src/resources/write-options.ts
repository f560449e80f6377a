/** The options and results of the storage's writes (kube's CreateOptions, UpdateOptions, PatchOptions, DeleteOptions). */
import type { JsonObject } from '@edict/foundation';
import type { FieldValidation } from './field-validation';

export interface WriteOptions {
  /** `dryRun=All`: every check runs, nothing is stored. */
  readonly dryRun?: boolean;
  /** What unknown fields in the body do (see `field-validation.ts`); direct typed calls drop them silently. */
  readonly fieldValidation?: FieldValidation;
  /** Where `Warn` puts its warnings (the response's `Warning` headers). */
  readonly warnings?: string[];
  /** Keys the request body repeats (`spec.replicas`): reported as `fieldValidation` says. */
  readonly duplicateFields?: readonly string[];
}

export interface PatchOptions extends WriteOptions {
  readonly fieldManager?: string;
  readonly force?: boolean;
  /** Set by an apply: the body already carries its managedFields (no Update is recorded on top). */
  readonly fieldsRecorded?: boolean;
}

/** How dependents (objects whose ownerReferences name the deleted object) are treated. */
export type PropagationPolicy = 'Background' | 'Foreground' | 'Orphan';

export interface DeleteOptions extends WriteOptions {
  readonly preconditions?: { readonly resourceVersion?: string; readonly uid?: string };
  /** Background (the default): the garbage collector deletes dependents after the owner is gone. */
  readonly propagationPolicy?: PropagationPolicy;
}

/** The `foregroundDeletion` finalizer: the owner stays until its dependents are gone. */
export const FOREGROUND_FINALIZER = 'foregroundDeletion';

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

export const PATCH_CONTENT_TYPES: Readonly<Record<string, PatchType>> = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
  'application/apply-patch+cbor': 'apply',
};

export interface ListResult {
  readonly items: JsonObject[];
  readonly resourceVersion: string;
  readonly continue?: string;
  readonly remainingItemCount?: number;
}

export interface WriteResult {
  readonly object: JsonObject;
  /** 200, 201 (created) or 202 (deletion pending on finalizers). */
  readonly code: number;
}
