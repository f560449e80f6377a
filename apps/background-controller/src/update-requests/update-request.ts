/**
 * A kyverno.io/v2 UpdateRequest as the background controller reads and writes it: the spec the
 * admission controller creates (UpdateRequestSpec) and the status Kyverno's controller keeps
 * (`state`, `message`, `generatedResources`, `retryCount`).
 */
import type { UpdateRequestResourceSpec, UpdateRequestSpec } from '@edict/admission';
import type { ObjectHeader } from '@edict/foundation';

export const UPDATE_REQUEST_API_VERSION = 'kyverno.io/v2';
export const UPDATE_REQUEST_KIND = 'UpdateRequest';

/** Kyverno's UpdateRequestState values. */
export type UpdateRequestState = 'Pending' | 'Completed' | 'Failed' | 'Skip';

export interface UpdateRequestStatus {
  state: UpdateRequestState;
  message?: string;
  /** The objects a generate request created (kyverno.io/v1 ResourceSpec). */
  generatedResources?: UpdateRequestResourceSpec[];
  retryCount?: number;
}

export interface UpdateRequest extends ObjectHeader {
  metadata: NonNullable<ObjectHeader['metadata']> & { name: string; namespace: string };
  spec: UpdateRequestSpec;
  status?: UpdateRequestStatus;
}

/** Whether a listed or watched object has what processing needs; anything else is left alone. */
export function isUpdateRequest(object: ObjectHeader & { spec?: unknown }): object is UpdateRequest {
  const spec = object.spec as Partial<UpdateRequestSpec> | undefined;
  return (
    typeof object.metadata?.name === 'string' &&
    typeof object.metadata.namespace === 'string' &&
    typeof spec?.policy === 'string' &&
    (spec.requestType === 'generate' || spec.requestType === 'mutate' || spec.requestType === 'cel-generate')
  );
}

/** The rule contexts of a request; one built from `rule` and `resource` when an older writer left none. */
export function ruleContextsOf(spec: UpdateRequestSpec): UpdateRequestSpec['ruleContext'] {
  if (spec.ruleContext?.length) return spec.ruleContext;
  return [{ rule: spec.rule, deleteDownstream: spec.deleteDownstream, trigger: spec.resource }];
}

/** `v1/ConfigMap team-a/settings`, for messages. */
export function describeResource(spec: UpdateRequestResourceSpec): string {
  const type = spec.apiVersion ? `${spec.apiVersion}/${spec.kind ?? ''}` : (spec.kind ?? '');
  return `${type} ${spec.namespace ? `${spec.namespace}/` : ''}${spec.name ?? ''}`;
}
