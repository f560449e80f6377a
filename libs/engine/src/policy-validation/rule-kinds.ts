import { parseKind } from '@edict/foundation';
import type { MatchResources, Rule } from '../policy';
import type { RuleCheck } from './check-context';
import type { Path } from './findings';
import { SUBRESOURCE_ONLY_KINDS } from './kinds';
import { ruleOnlyDealsWithMetadata } from './metadata-only';

const METADATA_ONLY =
  'policy can only deal with the metadata field of the resource if the rule does not match any kind';
const KIND_REQUIRED =
  'at least one element must be specified in a kind block, the kind attribute is mandatory when working with the resources element';
/** Variables a wildcard rule's legacy deny conditions may use besides request.object.metadata. */
const WILDCARD_ALLOWED_VARIABLES = /\{\{\s*(request\.|serviceAccountName|serviceAccountNamespace)[^{}]*\}\}/;

/**
 * Kinds: every resource filter of `match` names at least one kind, and the `*` wildcard kind is
 * limited to background-free rules that only deal with metadata (Kyverno's validateWildcard).
 */
export function checkRuleKinds(c: RuleCheck): void {
  const { rule, path, findings } = c;
  for (const block of ['match', 'exclude'] as const) {
    const m = rule[block];
    if (!m) continue;
    for (const [kinds, at] of kindLists(m, [...path, block])) {
      const problem = wildcardProblem(kinds, c.background, rule);
      if (problem) findings.error(at, problem);
    }
  }
  const match = rule.match ?? {};
  const filters = (match.any?.length ?? 0) > 0 ? match.any! : (match.all?.length ?? 0) > 0 ? match.all! : undefined;
  const key = (match.any?.length ?? 0) > 0 ? 'any' : 'all';
  const missing: Path[] = filters
    ? filters.flatMap((f, i) =>
        (f.resources?.kinds?.length ?? 0) === 0 ? [[...path, 'match', key, i, 'resources', 'kinds']] : [],
      )
    : (match.resources?.kinds?.length ?? 0) === 0
      ? [[...path, 'match', 'resources', 'kinds']]
      : [];
  for (const at of missing) findings.error(at, ruleOnlyDealsWithMetadata(rule) ? KIND_REQUIRED : METADATA_ONLY);
}

/**
 * Kyverno's webhook refuses a validate rule of a background policy that selects a subresource
 * (`Pod/exec`, `*\/status`, `Scale`...): background scans read stored objects, and subresources
 * have none. Its CLI does not look kinds up, so this runs only against a cluster.
 */
export function checkBackgroundSubresources(c: RuleCheck): void {
  const { rule, path, findings } = c;
  if (!c.againstCluster || !c.background || !rule.validate) return;
  for (const block of ['match', 'exclude'] as const) {
    const m = rule[block];
    if (!m) continue;
    for (const [kinds, at] of kindLists(m, [...path, block])) {
      const selected = kinds.find((kind) => kind !== '*' && selectsSubresource(kind));
      if (selected !== undefined) {
        findings.error(
          at,
          `the kind defined in the all match resource is invalid: background scan enabled with subresource ${selected}`,
        );
      }
    }
  }
}

function selectsSubresource(kind: string): boolean {
  const selector = parseKind(kind);
  return selector.subresource !== undefined || SUBRESOURCE_ONLY_KINDS.has(selector.kind);
}

function kindLists(m: MatchResources, path: Path): [string[], Path][] {
  const lists: [string[], Path][] = [];
  (m.any ?? []).forEach((f, i) => lists.push([f.resources?.kinds ?? [], [...path, 'any', i, 'resources', 'kinds']]));
  (m.all ?? []).forEach((f, i) => lists.push([f.resources?.kinds ?? [], [...path, 'all', i, 'resources', 'kinds']]));
  lists.push([m.resources?.kinds ?? [], [...path, 'resources', 'kinds']]);
  return lists;
}

function wildcardProblem(kinds: readonly string[], background: boolean, rule: Rule): string | undefined {
  if (!kinds.includes('*')) return undefined;
  if (background) {
    return 'wildcard policy not allowed in background mode. Set spec.background=false to disable background mode for this policy rule';
  }
  if (kinds.length > 1) return 'wildcard policy can not deal with more than one kind';
  if (rule.generate || (rule.verifyImages?.length ?? 0) > 0 || rule.validate?.foreach !== undefined) {
    return 'wildcard policy does not support rule type';
  }
  const validate = rule.validate;
  if (validate) {
    if ((validate.pattern !== undefined || validate.anyPattern !== undefined) && !ruleOnlyDealsWithMetadata(rule))
      return METADATA_ONLY;
    const conditions = validate.deny?.conditions;
    if (Array.isArray(conditions)) {
      for (const condition of conditions) {
        const key = typeof condition.key === 'string' ? condition.key : '';
        const allowed =
          key.includes('request.object.metadata.') ||
          (WILDCARD_ALLOWED_VARIABLES.test(key) && !key.includes('request.object.spec'));
        if (!allowed) return METADATA_ONLY;
      }
    }
  }
  if (rule.mutate && !ruleOnlyDealsWithMetadata(rule)) return METADATA_ONLY;
  return undefined;
}
