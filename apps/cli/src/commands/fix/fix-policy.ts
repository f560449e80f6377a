/**
 * The fixes `kyverno fix policy` makes to a ClusterPolicy or Policy (`cmd/cli/kubectl-kyverno/fix`),
 * and the clean-up it does before saving one.
 */
import { isObject, type JsonObject, type JsonValue } from '@edict/foundation';

export interface FixedPolicy {
  readonly fixed: JsonObject;
  readonly messages: string[];
  readonly error?: string;
}

/** Kyverno's policy kinds this command fixes (CEL and admission policies are kept as they are). */
export function isKyvernoPolicy(value: JsonValue): value is JsonObject {
  return (
    isObject(value) &&
    typeof value.apiVersion === 'string' &&
    value.apiVersion.startsWith('kyverno.io/') &&
    (value.kind === 'ClusterPolicy' || value.kind === 'Policy')
  );
}

const USER_INFO = ['roles', 'clusterRoles', 'subjects'] as const;

const nonEmpty = (value: JsonValue | undefined) =>
  value !== undefined &&
  value !== null &&
  !(isObject(value) && Object.keys(value).length === 0) &&
  !(Array.isArray(value) && value.length === 0);

/** Old-style `match`/`exclude` (`resources` and user info beside `any`/`all`) moved into one `any` entry. */
function moveToAny(rule: JsonObject, key: 'match' | 'exclude', messages: string[]): void {
  const block = rule[key];
  if (!isObject(block)) return;
  if (!nonEmpty(block.resources) && !USER_INFO.some((field) => nonEmpty(block[field]))) return;
  messages.push(`${key} uses old syntax, moving to any`);
  const filter: JsonObject = {};
  if (nonEmpty(block.resources)) filter.resources = block.resources;
  for (const field of USER_INFO) if (nonEmpty(block[field])) filter[field] = block[field];
  const moved: JsonObject = { ...block, any: [...(Array.isArray(block.any) ? block.any : []), filter] };
  delete moved.resources;
  for (const field of USER_INFO) delete moved[field];
  rule[key] = moved;
}

const OPERATORS: Record<string, string> = { Equal: 'Equals', NotEqual: 'NotEquals', In: 'AllIn', NotIn: 'AnyNotIn' };

/**
 * The policy with `validationFailureAction` spelled `Enforce` or `Audit`, each rule's old-style
 * match/exclude moved into `any`, and its preconditions as `any`/`all` (a bare list becomes `all`)
 * with the old operators (`Equal`, `NotEqual`, `In`, `NotIn`) renamed.
 */
export function fixPolicy(policy: JsonObject): FixedPolicy {
  const fixed = structuredClone(policy);
  const messages: string[] = [];
  const spec: JsonObject = isObject(fixed.spec) ? fixed.spec : {};
  fixed.spec = spec;
  const action = typeof spec.validationFailureAction === 'string' ? spec.validationFailureAction : '';
  spec.validationFailureAction = action.toLowerCase() === 'enforce' ? 'Enforce' : 'Audit';
  const rules = Array.isArray(spec.rules) ? spec.rules : [];
  for (const [index, rule] of rules.entries()) {
    if (!isObject(rule)) continue;
    moveToAny(rule, 'match', messages);
    moveToAny(rule, 'exclude', messages);
    const preconditions = rule.preconditions;
    if (preconditions === undefined || preconditions === null) continue;
    let conditions: JsonObject;
    if (Array.isArray(preconditions)) conditions = { all: preconditions };
    else if (isObject(preconditions)) conditions = { ...preconditions };
    else {
      return {
        fixed,
        messages,
        error: `spec.rules[${index}].preconditions: expected any/all conditions or a list of conditions`,
      };
    }
    for (const key of ['any', 'all'] as const) {
      const list = conditions[key];
      if (!Array.isArray(list)) continue;
      conditions[key] = list.map((condition) => {
        if (!isObject(condition) || typeof condition.operator !== 'string') return condition;
        const renamed = OPERATORS[condition.operator];
        if (!renamed) return condition;
        messages.push(`condition uses old operator \`${condition.operator}\`, updating`);
        return { ...condition, operator: renamed };
      });
      if (conditions[key].length === 0) delete conditions[key];
    }
    rule.preconditions = conditions;
  }
  return { fixed, messages };
}

function removeIfEmpty(object: JsonObject, ...path: string[]): void {
  const last = path.pop() as string;
  let parent: JsonValue | undefined = object;
  for (const key of path) parent = isObject(parent) ? parent[key] : undefined;
  if (!isObject(parent) || !(last in parent)) return;
  const value = parent[last];
  if (!isObject(value) || Object.keys(value).length === 0) delete parent[last];
}

/** What Kyverno prunes before saving a fixed policy: status, server-set metadata, and empty rule blocks. */
export function pruneForSave(policy: JsonObject): JsonObject {
  const out = structuredClone(policy);
  delete out.status;
  if (isObject(out.metadata)) {
    for (const field of ['creationTimestamp', 'generation', 'uid']) delete out.metadata[field];
  }
  const rules = isObject(out.spec) && Array.isArray(out.spec.rules) ? out.spec.rules : [];
  for (const rule of rules) {
    if (!isObject(rule)) continue;
    removeIfEmpty(rule, 'exclude', 'resources');
    removeIfEmpty(rule, 'match', 'resources');
    for (const block of ['match', 'exclude']) {
      for (const list of ['any', 'all']) {
        const filters = isObject(rule[block]) ? (rule[block] as JsonObject)[list] : undefined;
        for (const filter of Array.isArray(filters) ? filters : []) {
          if (isObject(filter)) removeIfEmpty(filter, 'resources');
        }
      }
    }
    removeIfEmpty(rule, 'generate', 'clone');
    removeIfEmpty(rule, 'generate', 'cloneList');
    removeIfEmpty(rule, 'generate');
    removeIfEmpty(rule, 'mutate');
    removeIfEmpty(rule, 'validate', 'manifests', 'dryRun');
    removeIfEmpty(rule, 'validate');
    removeIfEmpty(rule, 'exclude');
    removeIfEmpty(rule, 'match');
  }
  return out;
}
