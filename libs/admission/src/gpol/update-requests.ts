/**
 * The UpdateRequests a `/gpol/...` review leaves, as Kyverno's gpol handler creates them: the
 * request is always allowed (generating never blocks), and each GeneratingPolicy the path names
 * gets one `cel-generate` request for the trigger, with the requester and the admission request
 * kept for the background controller, which evaluates and generates. Not for dry runs, not for a
 * policy with admission disabled, not for a NamespacedGeneratingPolicy outside its namespace, and
 * not for the background controller's own requests when the policy skips them (the default).
 */
import type { CompiledGeneratingPolicy } from '@edict/cel-policies';
import type { UpdateRequestResourceSpec, UpdateRequestSpec } from '../background/update-requests';
import type { RequestRoles } from '../request/to-resource-request';
import type { AdmissionRequest } from '../review/types';
import { validatingPoliciesForPath, type ValidatingPolicyPath } from '../vpol/select';

/** Kyverno's request type of a GeneratingPolicy's UpdateRequest (api/kyverno/v2 CELGenerate). */
export const CEL_GENERATE_REQUEST = 'cel-generate';

/** What the builder reads of a compiled GeneratingPolicy. */
export type GeneratingPathPolicy = Pick<
  CompiledGeneratingPolicy,
  'name' | 'namespace' | 'admission' | 'synchronize' | 'skipBackgroundRequests'
>;

export interface GeneratingPolicyRequestOptions {
  readonly roles?: RequestRoles;
  /** The background controller's username: its requests do not trigger policies that skip them. */
  readonly backgroundUsername?: string;
}

/** How an UpdateRequest names a GeneratingPolicy: `name`, or `namespace/name` for a namespaced one. */
export function generatingPolicyKey(compiled: Pick<CompiledGeneratingPolicy, 'name' | 'namespace'>): string {
  return compiled.namespace !== undefined ? `${compiled.namespace}/${compiled.name}` : compiled.name;
}

/** One `cel-generate` UpdateRequest spec per GeneratingPolicy the path serves for the request. */
export function generatingPolicyRequests(
  request: AdmissionRequest,
  policies: readonly GeneratingPathPolicy[],
  path: ValidatingPolicyPath,
  options: GeneratingPolicyRequestOptions = {},
): UpdateRequestSpec[] {
  if (request.dryRun === true) return [];
  const trigger = triggerOf(request);
  if (trigger === undefined) return [];
  const fromBackground =
    options.backgroundUsername !== undefined && request.userInfo?.username === options.backgroundUsername;
  const served = validatingPoliciesForPath(
    policies.map((policy) => ({ ...policy, failurePolicy: 'Ignore' as const, policy })),
    { names: path.names ?? [] },
    request.namespace ?? '',
  );
  const context: UpdateRequestSpec['context'] = {
    userInfo: {
      userInfo: request.userInfo ?? {},
      ...(options.roles?.roles?.length ? { roles: [...options.roles.roles] } : {}),
      ...(options.roles?.clusterRoles?.length ? { clusterRoles: [...options.roles.clusterRoles] } : {}),
    },
    admissionRequestInfo: { admissionRequest: request, operation: request.operation },
  };
  return served
    .filter(({ policy }) => !(fromBackground && policy.skipBackgroundRequests))
    .map(({ policy }) => {
      const key = generatingPolicyKey(policy);
      return {
        requestType: CEL_GENERATE_REQUEST,
        policy: key,
        rule: '',
        deleteDownstream: false,
        ...(policy.synchronize ? { synchronize: true } : {}),
        ruleContext: [
          { rule: key, deleteDownstream: false, ...(policy.synchronize ? { synchronize: true } : {}), trigger },
        ],
        resource: trigger,
        context,
      };
    });
}

/** The trigger as Kyverno names it: the object (the old one for DELETE). */
function triggerOf(request: AdmissionRequest): UpdateRequestResourceSpec | undefined {
  const object = request.operation === 'DELETE' ? request.oldObject : (request.object ?? request.oldObject);
  if (!object) return undefined;
  const spec: UpdateRequestResourceSpec = {};
  if (object.apiVersion) spec.apiVersion = object.apiVersion;
  if (object.kind) spec.kind = object.kind;
  const namespace = object.metadata?.namespace ?? request.namespace;
  if (namespace) spec.namespace = namespace;
  const name = object.metadata?.name ?? request.name;
  if (name) spec.name = name;
  if (typeof object.metadata?.uid === 'string') spec.uid = object.metadata.uid;
  return spec;
}
