import {
  clonedFromSelector,
  concernsGenerate,
  generatedOrigin,
  isManagedByKyverno,
  ruleMatches,
  type CompiledPolicy,
  type GeneratedOrigin,
  type ResourceRequest,
} from '@edict/engine';
import { type KubeObject } from '@edict/foundation';
import { ruleRequestSpec, type BackgroundOptions, type UpdateRequestSpec } from './update-requests';

/** What finding the rules behind a generated object or a clone source reads. */
export interface SynchronizeLookup {
  /** A policy by key (`name`, or `namespace/name` for a Policy). */
  policy(key: string): CompiledPolicy | undefined;
  /** The objects of one type, in every namespace, that carry every one of the labels. */
  list(apiVersion: string, kind: string, labels: Record<string, string>): Promise<KubeObject[]>;
}

/**
 * Whether an admitted request may concern a synchronized generate rule without being its trigger
 * (Kyverno's non-trigger check): an update or deletion of an object that Kyverno generated or that
 * is a clone source, not made by the background controller itself.
 */
export function mayConcernSynchronize(request: ResourceRequest, options: BackgroundOptions = {}): boolean {
  if (request.operation !== 'UPDATE' && request.operation !== 'DELETE') return false;
  const username = request.user?.userInfo?.username;
  if (options.backgroundUsername !== undefined && username === options.backgroundUsername) return false;
  return concernsGenerate(request.oldResource);
}

/**
 * The UpdateRequests that keep synchronized downstream objects in line when something other than
 * their trigger changes, as Kyverno's admission does:
 *  - a generated object edited or deleted: its rule runs again for its trigger (restoring it);
 *  - a clone source edited: the rule runs again for the trigger of every object cloned from it;
 *    deleted: those objects are deleted (`deleteDownstream`).
 * Only rules with `synchronize: true` qualify; an object that is itself a trigger of the rule is
 * left to the trigger path. The requests name the trigger by uid and carry no admission request:
 * the background controller reads the trigger as it is now.
 */
export async function synchronizeRequestsFor(
  request: ResourceRequest,
  lookup: SynchronizeLookup,
  options: BackgroundOptions = {},
): Promise<UpdateRequestSpec[]> {
  if (!mayConcernSynchronize(request, options)) return [];
  const old = request.oldResource as KubeObject;
  let origins: GeneratedOrigin[];
  let deleteDownstream = false;
  if (isManagedByKyverno(old)) {
    const origin = generatedOrigin(old);
    origins = origin ? [origin] : [];
  } else {
    deleteDownstream = request.operation === 'DELETE';
    const clones = await lookup.list(old.apiVersion ?? '', old.kind ?? '', clonedFromSelector(old));
    origins = clones.flatMap((clone) => generatedOrigin(clone) ?? []);
  }
  const specs: UpdateRequestSpec[] = [];
  const seen = new Set<string>();
  for (const origin of origins) {
    const key = origin.policyNamespace ? `${origin.policyNamespace}/${origin.policyName}` : origin.policyName;
    const compiled = lookup.policy(key);
    const rule = compiled?.generateRules.find((candidate) => candidate.name === origin.rule);
    if (!compiled || rule?.generate?.synchronize !== true) continue;
    const namespace = origin.policyNamespace || undefined;
    if (ruleMatches(rule, { ...request, resource: old }, namespace).matched) continue;
    const once = `${key}\u0000${rule.name}\u0000${origin.trigger.uid}`;
    if (seen.has(once)) continue;
    seen.add(once);
    specs.push(
      ruleRequestSpec('generate', key, rule, withoutEmpty(origin.trigger), deleteDownstream, {
        userInfo: { userInfo: {} },
        admissionRequestInfo: {},
      }),
    );
  }
  return specs;
}

function withoutEmpty<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== '')) as Partial<T>;
}
