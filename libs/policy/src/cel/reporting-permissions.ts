/**
 * Whether the reports controller may read what a CEL policy matches, asked as Kyverno asks it for
 * the RBACPermissionsGranted condition: for every group × version × resource of the policy's
 * matchConstraints.resourceRules (a subresource such as `pods/ephemeralcontainers` as written), one
 * SubjectAccessReview per verb get, list and watch about the reports controller's user. Each denial
 * reads `<verb> <group>/<version>, Resource=<resource>: <reason>` (Go's GroupVersionResource text);
 * a review that fails is reported with its error, never taken as granted. At most
 * MAX_CHECKED_RESOURCES resources are asked about per policy; past that, the rest is named unchecked.
 */
import { errorMessage, isObject, type JsonValue } from '@edict/foundation';
import type { AccessReviewer } from '@edict/engine';
import type { ReportingPermissions } from './cel-policy-status-writer';
import type { CelPolicyEntry } from './cel-policy-store';

export const REPORTING_VERBS = ['get', 'list', 'watch'] as const;
/** Bounds the reviews one policy costs (3 per resource) on each status pass. */
export const MAX_CHECKED_RESOURCES = 32;

interface Gvr {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

export class AccessReviewReportingPermissions implements ReportingPermissions {
  private readonly groups: string[];

  /** `user`: the reports controller's username (`system:serviceaccount:<ns>:<name>`). */
  constructor(
    private readonly reviewer: AccessReviewer,
    private readonly user: string,
  ) {
    const account = /^system:serviceaccount:([^:]+):[^:]+$/.exec(user);
    this.groups = account
      ? ['system:serviceaccounts', `system:serviceaccounts:${account[1]}`, 'system:authenticated']
      : [];
  }

  async missing(entry: CelPolicyEntry): Promise<readonly string[]> {
    const all = resourcesOf(entry.object.spec);
    const checked = all.slice(0, MAX_CHECKED_RESOURCES);
    const missing: string[] = [];
    for (const gvr of checked) {
      for (const verb of REPORTING_VERBS) {
        const text = `${verb} ${gvr.group}/${gvr.version}, Resource=${gvr.resource}`;
        try {
          const decision = await this.reviewer.review({
            user: this.user,
            ...(this.groups.length > 0 ? { groups: this.groups } : {}),
            resourceAttributes: { group: gvr.group, version: gvr.version, resource: gvr.resource, verb },
          });
          if (!decision.allowed) missing.push(`${text}: ${decision.reason ?? ''}`);
        } catch (error) {
          missing.push(`${text}: the access review failed: ${errorMessage(error)}`);
        }
      }
    }
    if (all.length > checked.length) {
      missing.push(`${all.length - checked.length} more resources not checked (at most ${MAX_CHECKED_RESOURCES})`);
    }
    return missing;
  }
}

/** The policy's group × version × resource triples, in rule order, without repeats. */
function resourcesOf(spec: JsonValue | undefined): Gvr[] {
  const match = isObject(spec) && isObject(spec.matchConstraints) ? spec.matchConstraints : {};
  const rules = Array.isArray(match.resourceRules) ? match.resourceRules.filter(isObject) : [];
  const strings = (value: JsonValue | undefined) =>
    (Array.isArray(value) ? value : []).filter((s): s is string => typeof s === 'string');
  const seen = new Set<string>();
  const result: Gvr[] = [];
  for (const rule of rules) {
    for (const group of strings(rule.apiGroups))
      for (const version of strings(rule.apiVersions))
        for (const resource of strings(rule.resources)) {
          const key = `${group}\u0000${version}\u0000${resource}`;
          if (seen.has(key)) continue;
          seen.add(key);
          result.push({ group, version, resource });
        }
  }
  return result;
}
