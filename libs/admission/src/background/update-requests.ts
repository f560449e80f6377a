import { ruleMatches, type CompiledPolicy, type Rule, type ResourceRequest, type UserInfo } from '@edict/engine';
import { admissionRequestOf } from '../request/to-resource-request';
import type { AdmissionRequest } from '../review/types';
import { backgroundProbe, mutateExistingRules, type AdmissionEngine } from '../policies';

/** kyverno.io/v1 ResourceSpec: how an UpdateRequest names its trigger. */
export interface UpdateRequestResourceSpec {
  apiVersion?: string;
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
}

/**
 * The `spec` of a kyverno.io/v2 UpdateRequest, field for field, so the app can create
 * `{apiVersion: 'kyverno.io/v2', kind: 'UpdateRequest', metadata: {generateName: 'ur-', namespace},
 * spec}` as-is for the background controller.
 */
export interface UpdateRequestSpec {
  /** `cel-mutate`: a MutatingPolicy's mutate-existing work (mutate-existing-requests.ts); `cel-generate`: a GeneratingPolicy's generation (gpol/). */
  requestType: 'mutate' | 'generate' | 'cel-mutate' | 'cel-generate';
  policy: string;
  rule: string;
  deleteDownstream: boolean;
  synchronize?: boolean;
  ruleContext: { rule: string; deleteDownstream: boolean; synchronize?: boolean; trigger: UpdateRequestResourceSpec }[];
  resource: UpdateRequestResourceSpec;
  context: {
    userInfo: { roles?: string[]; clusterRoles?: string[]; userInfo: UserInfo };
    admissionRequestInfo: { admissionRequest?: AdmissionRequest; operation?: string };
  };
}

export interface BackgroundOptions {
  /**
   * The background controller's username (`system:serviceaccount:<ns>:<sa>`): its own requests do
   * not trigger rules with `skipBackgroundRequests` (the default), as in Kyverno.
   */
  backgroundUsername?: string;
}

/**
 * The generate and mutate-existing rules this admitted request triggers, one UpdateRequest spec per
 * rule. Only matching is decided here (match, preconditions, exceptions through the engine); the
 * background controller does the work. DELETE triggers only rules that list DELETE in their match
 * (Kyverno's generate-on-deletion and mutate-existing on deletion).
 */
export async function updateRequestsFor(
  request: ResourceRequest,
  policies: readonly CompiledPolicy[],
  engine: AdmissionEngine,
  options: BackgroundOptions = {},
): Promise<UpdateRequestSpec[]> {
  const specs: UpdateRequestSpec[] = [];
  const username = request.user?.userInfo?.username ?? '';
  const fromBackground = options.backgroundUsername !== undefined && username === options.backgroundUsername;
  const skips = (rule: Rule) => fromBackground && rule.skipBackgroundRequests !== false;
  for (const compiled of policies) {
    if (compiled.policy.spec.admission === false) continue;
    const existing = mutateExistingRules(compiled);
    if (existing.length === 0 && compiled.generateRules.length === 0) continue;
    let response;
    try {
      response = await engine.validate(backgroundProbe(compiled), request);
    } catch {
      continue;
    }
    const passed = new Set<string>();
    for (const result of response.rules) {
      if (result.status !== 'pass') continue;
      passed.add(result.name);
      const mutateRule = existing.find((candidate) => candidate.name === result.name);
      const generateRule = compiled.generateRules.find((candidate) => candidate.name === result.name);
      const rule = mutateRule ?? generateRule;
      if (!rule || skips(rule)) continue;
      if (request.operation === 'DELETE' && !listsDelete(rule)) {
        // Kyverno: the trigger of a synchronized rule went, so does what the rule generated for it.
        if (generateRule?.generate?.synchronize === true) specs.push(spec('generate', compiled, rule, request, true));
        continue;
      }
      specs.push(spec(mutateRule ? 'mutate' : 'generate', compiled, rule, request));
    }
    if (request.operation !== 'UPDATE' || !request.oldResource) continue;
    // Kyverno: an update after which the trigger no longer matches a synchronized rule it matched
    // before deletes the rule's downstream for it.
    for (const rule of compiled.generateRules) {
      if (passed.has(rule.name) || rule.generate?.synchronize !== true || skips(rule)) continue;
      const before = { ...request, resource: request.oldResource };
      if (ruleMatches(rule, before, policyNamespaceOf(compiled)).matched) {
        specs.push(spec('generate', compiled, rule, request, true));
      }
    }
  }
  return specs;
}

function policyNamespaceOf(compiled: CompiledPolicy): string | undefined {
  return compiled.policy.kind === 'Policy' ? (compiled.policy.metadata.namespace ?? 'default') : undefined;
}

/** Kyverno's MatchDeleteOperation: a rule acts on DELETE only when its match names the operation. */
function listsDelete(rule: Rule): boolean {
  const match = rule.match;
  const filters = [...(match.any ?? []), ...(match.all ?? [])];
  const operations = [
    ...(match.resources?.operations ?? []),
    ...filters.flatMap((filter) => filter.resources?.operations ?? []),
  ];
  return operations.includes('DELETE');
}

function spec(
  type: 'mutate' | 'generate',
  compiled: CompiledPolicy,
  rule: Rule,
  request: ResourceRequest,
  deleteDownstream = false,
): UpdateRequestSpec {
  return ruleRequestSpec(
    type,
    compiled.key,
    rule,
    triggerResourceSpec(request),
    deleteDownstream,
    requestContext(request),
  );
}

/** The trigger of an UpdateRequest: the request's object (the old one for DELETE). */
export function triggerResourceSpec(request: ResourceRequest): UpdateRequestResourceSpec {
  const trigger = request.resource ?? request.oldResource;
  const resource: UpdateRequestResourceSpec = {};
  if (trigger?.apiVersion) resource.apiVersion = trigger.apiVersion;
  if (trigger?.kind) resource.kind = trigger.kind;
  if (trigger?.metadata?.namespace) resource.namespace = trigger.metadata.namespace;
  if (trigger?.metadata?.name) resource.name = trigger.metadata.name;
  if (typeof trigger?.metadata?.uid === 'string') resource.uid = trigger.metadata.uid;
  return resource;
}

/** An UpdateRequest's `context`: the requester with its roles, and the admission request. */
export function requestContext(request: ResourceRequest): UpdateRequestSpec['context'] {
  const user = request.user ?? {};
  const userInfo: UpdateRequestSpec['context']['userInfo'] = { userInfo: user.userInfo ?? {} };
  if (user.roles && user.roles.length > 0) userInfo.roles = user.roles;
  if (user.clusterRoles && user.clusterRoles.length > 0) userInfo.clusterRoles = user.clusterRoles;
  const admissionRequest = admissionRequestOf(request);
  const context: UpdateRequestSpec['context'] = { userInfo, admissionRequestInfo: { operation: request.operation } };
  if (admissionRequest) context.admissionRequestInfo.admissionRequest = admissionRequest;
  return context;
}

/** One rule's UpdateRequest spec for one trigger. */
export function ruleRequestSpec(
  type: 'mutate' | 'generate',
  policyKey: string,
  rule: Rule,
  trigger: UpdateRequestResourceSpec,
  deleteDownstream: boolean,
  context: UpdateRequestSpec['context'],
): UpdateRequestSpec {
  const out: UpdateRequestSpec = {
    requestType: type,
    policy: policyKey,
    rule: rule.name,
    deleteDownstream,
    ruleContext: [{ rule: rule.name, deleteDownstream, trigger }],
    resource: trigger,
    context,
  };
  if (type === 'generate' && rule.generate?.synchronize === true) {
    out.synchronize = true;
    (out.ruleContext[0] as UpdateRequestSpec['ruleContext'][number]).synchronize = true;
  }
  return out;
}
