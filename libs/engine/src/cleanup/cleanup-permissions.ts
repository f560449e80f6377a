/**
 * Kyverno's permission check at cleanup policy admission: the cleanup controller lists and deletes
 * the kinds a policy matches, so the policy is refused when the controller may not (one access
 * review per verb, type and matched name, in the policy's namespace for a CleanupPolicy). A filter
 * that names resources is asked about each name, so a role limited to those names (`resourceNames`)
 * is enough. Delete is asked before list, and the first missing permission refuses, with Kyverno's
 * message naming verb and kind. A
 * kind the API server does not serve, or a review that cannot be made, refuses too (fail closed).
 * The reviewer answers for the cleanup controller itself (Kyverno asks with SelfSubjectAccessReviews,
 * which need no RBAC of their own), so the questions carry no user.
 */
import type { AccessReviewer } from '../core/loaders';
import type { MatchResources, ResourceFilter } from '../policy';
import { type Diagnostic, errorMessage } from '@edict/foundation';
import type { CleanupPolicy } from './cleanup-policy';

/** The resources a kind selector names (several for a wildcard); none when it is not served. */
export type CleanupKindResolver = (
  kind: string,
) => Promise<ReadonlyArray<{ readonly group: string; readonly resource: string }>>;

export interface CleanupPermissionOptions {
  /** Answers whether the cleanup controller itself may (the request's user fields are empty). */
  readonly reviewer: AccessReviewer;
  readonly resolve: CleanupKindResolver;
}

const VERBS = ['delete', 'list'] as const;

/** A cleanup policy's match filters: any, all and the legacy resources. */
function matchFilters(match: MatchResources | undefined): ResourceFilter[] {
  return [...(match?.any ?? []), ...(match?.all ?? []), ...(match ? [match] : [])];
}

/** The kind selectors a cleanup policy's match names, each once. */
export function cleanupPolicyKinds(match: MatchResources | undefined): string[] {
  return [...new Set(matchFilters(match).flatMap((filter) => filter?.resources?.kinds ?? []))];
}

/** Each kind a filter of the policy's match names, with the names that filter restricts it to. */
function kindsWithNames(match: MatchResources | undefined): Array<{ kind: string; names: Array<string | undefined> }> {
  return matchFilters(match).flatMap((filter) => {
    const names = filter?.resources?.names?.length ? filter.resources.names : [undefined];
    return (filter?.resources?.kinds ?? []).map((kind) => ({ kind, names }));
  });
}

export async function checkCleanupPermissions(
  policy: CleanupPolicy,
  options: CleanupPermissionOptions,
): Promise<Diagnostic[]> {
  const namespace = policy.kind === 'CleanupPolicy' ? policy.metadata?.namespace : undefined;
  // No field path: Kyverno's message is the sentence alone.
  const object = `${policy.kind ?? 'ClusterCleanupPolicy'}/${policy.metadata?.name ?? ''}`;
  const refuse = (message: string): Diagnostic[] => [{ file: '', object, message }];
  for (const { kind, names } of kindsWithNames(policy.spec?.match)) {
    let targets;
    try {
      targets = await options.resolve(kind);
    } catch (error) {
      return refuse(`cleanup controller could not look up kind ${kind}: ${errorMessage(error)}`);
    }
    if (targets.length === 0) return refuse(`cleanup controller found no served resource for kind ${kind}`);
    for (const name of names) {
      for (const verb of VERBS) {
        for (const { group, resource } of targets) {
          let allowed: boolean;
          try {
            const decision = await options.reviewer.review({
              user: '',
              resourceAttributes: {
                group,
                resource,
                verb,
                ...(namespace ? { namespace } : {}),
                ...(name ? { name } : {}),
              },
            });
            allowed = decision.allowed;
          } catch (error) {
            return refuse(
              `cleanup controller could not check its permission to ${verb} kind ${kind}: ${errorMessage(error)}`,
            );
          }
          if (!allowed) return refuse(`cleanup controller has no permission to ${verb} kind ${kind}`);
        }
      }
    }
  }
  return [];
}
