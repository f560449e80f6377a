/**
 * Kyverno's admission webhook looks each kind a rule's match and exclude blocks name up in API
 * discovery (validKinds: a kind is a top-level resource of the cluster, its subresource one the
 * parent serves). Since Kyverno 1.14 a kind nothing serves (a CRD not installed yet) admits the policy
 * with a warning; a kind Kubernetes serves only as a subresource (`Scale`, `PodExecOptions`...) is
 * not a resource policies can name by kind and is refused. A list holding `*` is the wildcard
 * check's (`rule-kinds.ts`). Discovery is the caller's: pure code asks `lookup`.
 */
import { parseKind, type Diagnostic, type KindSelector } from '@edict/foundation';
import { withAutogen, type MatchResources, type Policy } from '../policy';
import { SUBRESOURCE_ONLY_KINDS } from './kinds';

/**
 * How many API resources serve a parsed kind selector (wildcards match as in discovery; a
 * subresource must be served by the parent): `undefined` when discovery cannot tell.
 */
export type KindLookup = (selector: Required<KindSelector>) => number | undefined;

const INVALID = 'the kind defined in the all match resource is invalid';

/** Errors for kinds only subresources serve, warnings for kinds nothing serves (autogen rules too). */
export function checkKindsServed(policy: Policy, lookup: KindLookup): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const object = `${policy.kind}/${policy.metadata?.name ?? ''}`;
  (withAutogen(policy).spec.rules ?? []).forEach((rule, index) => {
    for (const block of ['match', 'exclude'] as const) {
      const filters = rule[block];
      if (!filters) continue;
      for (const [kinds, path] of kindLists(filters, `spec.rules[${index}].${block}`)) {
        if (kinds.includes('*')) continue;
        for (const kind of kinds) {
          const problem = kindProblem(kind, lookup);
          if (problem) {
            diagnostics.push({ file: '', object, path, ...problem });
            break; // Kyverno stops at the first kind of a list it cannot resolve
          }
        }
      }
    }
  });
  return diagnostics;
}

function kindProblem(kind: string, lookup: KindLookup): Pick<Diagnostic, 'message' | 'severity'> | undefined {
  const parsed = parseKind(kind);
  const selector = { ...parsed, subresource: parsed.subresource ?? '' };
  const served = lookup(selector);
  if (served === undefined || served > 0) return undefined;
  if (selector.subresource === '' && SUBRESOURCE_ONLY_KINDS.has(selector.kind)) {
    return { message: `${INVALID}: unable to convert GVK to GVR for kinds ${kind}` };
  }
  const { group, version, kind: name, subresource } = selector;
  return {
    message: `${INVALID}: unable to convert GVK to GVR for kinds ${kind}, err: failed to find resource (${group}/${version}/${name}/${subresource})`,
    severity: 'warning',
  };
}

/** The kind lists of a match or exclude block with their field paths (any, all, then resources). */
function kindLists(m: MatchResources, path: string): Array<[readonly string[], string]> {
  const lists: Array<[readonly string[], string]> = [];
  (m.any ?? []).forEach((f, i) => lists.push([f.resources?.kinds ?? [], `${path}.any[${i}].kinds`]));
  (m.all ?? []).forEach((f, i) => lists.push([f.resources?.kinds ?? [], `${path}.all[${i}].kinds`]));
  if (m.resources?.kinds) lists.push([m.resources.kinds, `${path}.kinds`]);
  return lists;
}
