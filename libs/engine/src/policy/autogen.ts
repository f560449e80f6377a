import { cloneJson, isObject, type JsonObject, type JsonValue } from '@edict/foundation';
import { containsKind } from './kinds';
import type { Policy, Rule } from './types';

/**
 * Kyverno's "auto-gen rules for Pod controllers": a policy written for Pods also gets rules for the
 * controllers that create Pods, with patterns moved under the pod template. This reproduces Kyverno's
 * v1 autogen (rule selection, naming, kind and variable rewriting) so that results carry the same
 * rule names (`autogen-X`, `autogen-cronjob-X`).
 */

export const AUTOGEN_CONTROLLERS_ANNOTATION = 'pod-policies.kyverno.io/autogen-controllers';

/** Every controller autogen knows; CronJob gets its own rule. */
export const POD_CONTROLLERS = [
  'DaemonSet',
  'Deployment',
  'Job',
  'StatefulSet',
  'ReplicaSet',
  'ReplicationController',
  'CronJob',
] as const;
const CRONJOB = 'CronJob';
const TEMPLATE_CONTROLLERS = new Set<string>(POD_CONTROLLERS.filter((c) => c !== CRONJOB));
const KINDS_THAT_NEED_AUTOGEN = new Set<string>([...POD_CONTROLLERS, 'Pod']);

/** Generated rules name the kinds with group and version, as current Kyverno does. */
const CONTROLLER_GVK: Record<string, string> = {
  DaemonSet: 'apps/v1/DaemonSet',
  Deployment: 'apps/v1/Deployment',
  Job: 'batch/v1/Job',
  StatefulSet: 'apps/v1/StatefulSet',
  ReplicaSet: 'apps/v1/ReplicaSet',
  ReplicationController: 'v1/ReplicationController',
  CronJob: 'batch/v1/CronJob',
  Pod: 'v1/Pod',
};

export function isAutogenRuleName(name: string): boolean {
  return name.startsWith('autogen-');
}

/** The rules Kyverno adds for Pod controllers (empty when autogen does not apply). */
export function autogenRules(policy: Policy): Rule[] {
  const controllers = effectiveControllers(policy);
  if (controllers === undefined) return [];
  return generateRules((policy.spec?.rules ?? []) as unknown as JsonObject[], controllers) as unknown as Rule[];
}

/** What Kyverno reports as `status.autogen`. */
export function autogenStatus(policy: Policy): { rules: Rule[] } {
  return { rules: autogenRules(policy) };
}

const withAutogenCache = new WeakMap<Policy, Policy>();

/**
 * The policy as Kyverno evaluates it: its own rules (minus stale `autogen-` rules, when new ones are
 * generated) followed by each rule's `autogen-X` then `autogen-cronjob-X`. Cached per policy object;
 * the input is not modified.
 */
export function withAutogen(policy: Policy): Policy {
  const cached = withAutogenCache.get(policy);
  if (cached) return cached;
  const generated = autogenRules(policy);
  let result = policy;
  if (generated.length > 0) {
    const own = (policy.spec.rules ?? []).filter((rule) => !isAutogenRuleName(rule.name));
    result = { ...policy, spec: { ...policy.spec, rules: [...own, ...generated] } };
  }
  withAutogenCache.set(policy, result);
  return result;
}

/**
 * The comma-separated controller list autogen works with, or undefined when it is off: the policy
 * does not qualify, or the annotation says `none`. The annotation is only honoured for policies that
 * qualify; a qualifying policy without it gets every controller.
 */
export function effectiveControllers(policy: Policy): string | undefined {
  if (!canAutogen((policy.spec?.rules ?? []) as unknown as JsonObject[])) return undefined;
  const annotations = policy.metadata?.annotations;
  const requested = isObject(annotations as JsonValue) ? annotations?.[AUTOGEN_CONTROLLERS_ANNOTATION] : undefined;
  const controllers =
    typeof requested === 'string' ? [...new Set(requested.split(','))].join(',') : POD_CONTROLLERS.join(',');
  return controllers === 'none' ? undefined : controllers;
}

// ---------------------------------------------------------------------------------------------
// Which policies qualify

/**
 * Autogen is all-or-nothing per policy. It is off when any rule generates resources or uses a JSON
 * patch, when any match/exclude description filters by name, names, selector or annotations, or mixes
 * Pod with other kinds in one description, and when no rule mentions Pod or a Pod controller.
 */
function canAutogen(rules: JsonObject[]): boolean {
  let needed = false;
  for (const rule of rules) {
    if (!isObject(rule)) continue;
    if (rule.generate !== undefined && rule.generate !== null) return false;
    if (usesJsonPatch(rule.mutate)) return false;
    for (const description of resourceDescriptions(rule)) {
      if (!supportsAutogen(description)) return false;
      needed ||= stringList(description.kinds).some((kind) => KINDS_THAT_NEED_AUTOGEN.has(kind));
    }
  }
  return needed;
}

function usesJsonPatch(mutate: JsonValue | undefined): boolean {
  if (!isObject(mutate)) return false;
  if (nonEmptyString(mutate.patchesJson6902)) return true;
  return arrayOf(mutate.foreach).some((each) => isObject(each) && nonEmptyString(each.patchesJson6902));
}

/** The legacy `resources` of match (always, even empty) and exclude, and those of any/all entries. */
function resourceDescriptions(rule: JsonObject): JsonObject[] {
  const out: JsonObject[] = [];
  const collect = (block: JsonValue | undefined, always: boolean) => {
    if (!isObject(block)) {
      if (always) out.push({});
      return;
    }
    out.push(isObject(block.resources) ? block.resources : {});
    for (const key of ['any', 'all'] as const) {
      for (const filter of arrayOf(block[key])) {
        out.push(isObject(filter) && isObject(filter.resources) ? filter.resources : {});
      }
    }
  };
  collect(rule.match, true);
  if (rule.exclude !== undefined && rule.exclude !== null) collect(rule.exclude, false);
  return out;
}

function supportsAutogen(description: JsonObject): boolean {
  if (nonEmptyString(description.name)) return false;
  if (arrayOf(description.names).length > 0) return false;
  if (description.selector !== undefined && description.selector !== null) return false;
  if (description.annotations !== undefined && description.annotations !== null) return false;
  const kinds = stringList(description.kinds);
  return !(kinds.length > 1 && containsKind(kinds, 'Pod'));
}

// ---------------------------------------------------------------------------------------------
// Generating the rules

function generateRules(rules: JsonObject[], controllers: string): JsonObject[] {
  const out: JsonObject[] = [];
  const withoutCronJob = sortedKinds(controllers)
    .filter((c) => c !== CRONJOB)
    .join(',');
  for (const rule of rules) {
    if (!isObject(rule)) continue;
    const forControllers = ruleForControllers(rule, withoutCronJob);
    if (forControllers) out.push(finishRule(forControllers, POD_REWRITES));
    const forCronJob = ruleForCronJob(rule, controllers);
    if (forCronJob) out.push(finishRule(forCronJob, CRONJOB_REWRITES));
  }
  return out;
}

/** Go's sort.Strings after splitting: byte order, which for these ASCII names is JS's default order. */
function sortedKinds(controllers: string): string[] {
  return controllers.split(',').sort();
}

function ruleForControllers(rule: JsonObject, controllers: string): JsonObject | undefined {
  const name = typeof rule.name === 'string' ? rule.name : '';
  if (isAutogenRuleName(name) || controllers === '') return undefined;
  const matchKinds = blockKinds(rule.match);
  const excludeKinds = blockKinds(rule.exclude);
  if (!containsKind(matchKinds, 'Pod')) return undefined;
  if (excludeKinds.length > 0 && !containsKind(excludeKinds, 'Pod')) return undefined;

  // `all` is an old spelling of the full list; unknown names are dropped unless nothing else is left.
  let kinds: string;
  if (controllers === 'all') {
    kinds = 'DaemonSet,Deployment,Job,StatefulSet,ReplicaSet,ReplicationController';
  } else {
    const known = controllers === 'none' ? [] : sortedKinds(controllers).filter((c) => TEMPLATE_CONTROLLERS.has(c));
    kinds = known.length > 0 ? known.join(',') : controllers;
  }
  return generateRule(
    autogenName('autogen', name),
    rule,
    'template',
    'spec/template',
    sortedKinds(kinds),
    (filters, k) => filters.map((filter) => (filterHasKind(filter, 'Pod') ? withKinds(filter, k) : filter)),
  );
}

/** The CronJob rule is derived from the controllers rule, so its patterns end up two levels deeper. */
function ruleForCronJob(rule: JsonObject, controllers: string): JsonObject | undefined {
  if (!controllers.includes(CRONJOB) && !controllers.includes('all')) return undefined;
  const name = typeof rule.name === 'string' ? rule.name : '';
  const base = ruleForControllers(rule, controllers);
  if (!base) return undefined;
  return generateRule(
    autogenName('autogen-cronjob', name),
    base,
    'jobTemplate',
    'spec/jobTemplate/spec/template',
    [CRONJOB],
    (filters, k) => filters.map((filter) => withKinds(filter, k)),
  );
}

/** Kyverno caps rule names at 63 characters. */
function autogenName(prefix: string, name: string): string {
  return `${prefix}-${name}`.slice(0, 63);
}

type RewriteFilters = (filters: JsonValue[], kinds: string[]) => JsonValue[];

/**
 * Copies the rule under a new name, points match/exclude at the controller kinds and moves the
 * pattern-like parts under `spec.<tplKey>`. Undefined when the rule has nothing autogen can carry
 * over (Kyverno then skips it).
 */
function generateRule(
  name: string,
  source: JsonObject,
  tplKey: string,
  shift: string,
  controllerKinds: string[],
  rewriteFilters: RewriteFilters,
): JsonObject | undefined {
  const rule = cloneJson(source);
  rule.name = name;
  const kinds = controllerKinds.map((kind) => CONTROLLER_GVK[kind] ?? kind);

  const match = isObject(rule.match) ? rule.match : (rule.match = {});
  if (arrayOf(match.any).length > 0) match.any = rewriteFilters(arrayOf(match.any), kinds);
  else if (arrayOf(match.all).length > 0) match.all = rewriteFilters(arrayOf(match.all), kinds);
  else match.resources = { ...(isObject(match.resources) ? match.resources : {}), kinds };

  if (isObject(rule.exclude)) {
    const exclude = rule.exclude;
    if (arrayOf(exclude.any).length > 0) exclude.any = rewriteFilters(arrayOf(exclude.any), kinds);
    else if (arrayOf(exclude.all).length > 0) exclude.all = rewriteFilters(arrayOf(exclude.all), kinds);
    else if (isObject(exclude.resources) && arrayOf(exclude.resources.kinds).length > 0) {
      exclude.resources = { ...exclude.resources, kinds };
    }
  }

  const nest = (value: JsonValue): JsonObject => ({ spec: { [tplKey]: value } });

  if (isObject(rule.mutate)) {
    const mutate = rule.mutate;
    if (present(mutate.patchStrategicMerge)) {
      rule.mutate = { patchStrategicMerge: nest(mutate.patchStrategicMerge) };
      return rule;
    }
    const foreach = arrayOf(mutate.foreach);
    if (foreach.length > 0) {
      // Only list, context and preconditions survive; order and nested foreach are dropped.
      rule.mutate = {
        foreach: foreach.map((each) => {
          const e = isObject(each) ? each : {};
          return compact({
            list: nonEmptyString(e.list) ? e.list : undefined,
            context: arrayOf(e.context).length > 0 ? e.context : undefined,
            preconditions: present(e.preconditions) ? e.preconditions : undefined,
            patchStrategicMerge: nest(e.patchStrategicMerge ?? null),
          });
        }),
      };
      return rule;
    }
  }

  if (isObject(rule.validate)) {
    const validate = rule.validate;
    const message = typeof validate.message === 'string' ? validate.message : '';
    const common = (pivot: string): JsonObject =>
      compact({
        message: nonEmptyString(message) ? shiftReferences(message, shift, pivot) || undefined : undefined,
        failureAction: validate.failureAction,
        failureActionOverrides: validate.failureActionOverrides,
        allowExistingViolations: validate.allowExistingViolations,
      });
    if (present(validate.pattern)) {
      rule.validate = { ...common('pattern'), pattern: nest(validate.pattern) };
      return rule;
    }
    if (present(validate.deny)) {
      rule.validate = { ...common('deny'), deny: validate.deny };
      return rule;
    }
    if (isObject(validate.podSecurity)) {
      const pss = validate.podSecurity;
      const podSecurity = compact({
        level: nonEmptyString(pss.level) ? pss.level : undefined,
        version: nonEmptyString(pss.version) ? pss.version : undefined,
        exclude: arrayOf(pss.exclude).length > 0 ? pss.exclude : undefined,
      });
      rule.validate = { ...common('podSecurity'), podSecurity };
      return rule;
    }
    if (present(validate.anyPattern)) {
      const patterns = Array.isArray(validate.anyPattern) ? validate.anyPattern.map(nest) : [];
      rule.validate = { ...common('anyPattern'), ...(patterns.length > 0 ? { anyPattern: patterns } : {}) };
      return rule;
    }
    if (arrayOf(validate.foreach).length > 0) {
      rule.validate = { ...common('pattern'), foreach: validate.foreach };
      return rule;
    }
    // Kyverno keeps a CEL rule as it is whenever `cel` is set, even empty (HasValidateCEL).
    if (isObject(validate.cel)) return rule;
    if (present(validate.assert)) {
      rule.validate = { ...validate, assert: autogenAssertion(validate.assert, tplKey) };
      return rule;
    }
  }

  if (present(rule.verifyImages)) return rule;
  return undefined;
}

/** kyverno-json assertions address `object` / `oldObject`; those move under the template. */
function autogenAssertion(tree: JsonValue, tplKey: string): JsonValue {
  if (!isObject(tree)) return tree;
  const out: JsonObject = { ...tree };
  for (const node of ['object', 'oldObject']) {
    const value = tree[node];
    if (isObject(value)) out[node] = { spec: { [tplKey]: { ...value } } };
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Final form of a generated rule

type Rewrites = readonly (readonly [string, string])[];
const POD_REWRITES = {
  plain: [
    ['request.object.spec', 'request.object.spec.template.spec'],
    ['request.oldObject.spec', 'request.oldObject.spec.template.spec'],
    ['request.object.metadata', 'request.object.spec.template.metadata'],
    ['request.oldObject.metadata', 'request.oldObject.spec.template.metadata'],
  ],
  cel: [
    ['object.spec', 'object.spec.template.spec'],
    ['oldObject.spec', 'oldObject.spec.template.spec'],
    ['object.metadata', 'object.spec.template.metadata'],
    ['oldObject.metadata', 'oldObject.spec.template.metadata'],
  ],
} as const satisfies Record<string, Rewrites>;
const CRONJOB_REWRITES = {
  plain: [
    ['request.object.spec', 'request.object.spec.jobTemplate.spec.template.spec'],
    ['request.oldObject.spec', 'request.oldObject.spec.jobTemplate.spec.template.spec'],
    ['request.object.metadata', 'request.object.spec.jobTemplate.spec.template.metadata'],
    ['request.oldObject.metadata', 'request.oldObject.spec.jobTemplate.spec.template.metadata'],
  ],
  cel: [
    ['object.spec', 'object.spec.jobTemplate.spec.template.spec'],
    ['oldObject.spec', 'oldObject.spec.jobTemplate.spec.template.spec'],
    ['object.metadata', 'object.spec.jobTemplate.spec.template.metadata'],
    ['oldObject.metadata', 'oldObject.spec.jobTemplate.spec.template.metadata'],
  ],
} as const satisfies Record<string, Rewrites>;

/**
 * Keeps only the fields Kyverno carries into generated rules (empty ones dropped; imageExtractors and
 * anything else dropped) and rewrites object references in every string of the rule, keys included,
 * exactly as Kyverno's textual replacement over the rule's JSON does. CEL rules use the CEL spellings.
 */
function finishRule(rule: JsonObject, rewrites: { plain: Rewrites; cel: Rewrites }): JsonObject {
  const kept = compact({
    name: rule.name,
    match: isObject(rule.match) && Object.keys(rule.match).length > 0 ? rule.match : undefined,
    exclude: isObject(rule.exclude) && Object.keys(rule.exclude).length > 0 ? rule.exclude : undefined,
    context: arrayOf(rule.context).length > 0 ? rule.context : undefined,
    preconditions: nonEmptyConditions(rule.preconditions) ? rule.preconditions : undefined,
    celPreconditions: arrayOf(rule.celPreconditions).length > 0 ? rule.celPreconditions : undefined,
    mutate: isObject(rule.mutate) && Object.keys(rule.mutate).length > 0 ? rule.mutate : undefined,
    validate: isObject(rule.validate) && Object.keys(rule.validate).length > 0 ? rule.validate : undefined,
    verifyImages: arrayOf(rule.verifyImages).length > 0 ? rule.verifyImages : undefined,
    skipBackgroundRequests: rule.skipBackgroundRequests,
    reportProperties:
      isObject(rule.reportProperties) && Object.keys(rule.reportProperties).length > 0
        ? rule.reportProperties
        : undefined,
  });
  const cel = isObject(kept.validate) && present(kept.validate.cel);
  return rewriteStrings(kept, cel ? rewrites.cel : rewrites.plain) as JsonObject;
}

function rewriteStrings(value: JsonValue, rewrites: Rewrites): JsonValue {
  if (typeof value === 'string') return rewriteString(value, rewrites);
  if (Array.isArray(value)) return value.map((item) => rewriteStrings(item, rewrites));
  if (isObject(value)) {
    const out: JsonObject = {};
    for (const [key, item] of Object.entries(value)) out[rewriteString(key, rewrites)] = rewriteStrings(item, rewrites);
    return out;
  }
  return value;
}

function rewriteString(text: string, rewrites: Rewrites): string {
  let out = text;
  for (const [from, to] of rewrites) if (out.includes(from)) out = out.split(from).join(to);
  return out;
}

/** `$(...)` references at the start or after a non-backslash (Kyverno's reference syntax). */
const REFERENCE = /^\$\(.[^ ]*\)|[^\\]\$\(.[^ ]*\)/g;

/**
 * Messages may reference pattern values with `$(...)` paths; those paths gain the template prefix
 * after the pivot (`pattern`, `anyPattern/<i>`, ...). Mirrors Kyverno, including its quirk that the
 * anyPattern pivot keeps the first reference's index for later references.
 */
function shiftReferences(value: string, shift: string, pivot: string): string {
  let result = value;
  let currentPivot = pivot;
  for (const found of value.match(REFERENCE) ?? []) {
    const initial = found.startsWith('$(');
    const reference = initial ? found : found.slice(1);
    if (currentPivot === 'anyPattern') {
      const index = reference.indexOf(currentPivot);
      const ruleIndex = reference.slice(index + currentPivot.length + 1).split('/')[0];
      currentPivot = `${currentPivot}/${ruleIndex}`;
    }
    const shifted = reference.split(currentPivot).join(`${currentPivot}/${shift}`);
    const replacement = (initial ? '' : found[0]) + shifted;
    result = result.replace(found, () => replacement);
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// Small helpers over untyped JSON

function blockKinds(block: JsonValue | undefined): string[] {
  if (!isObject(block)) return [];
  const kinds = isObject(block.resources) ? stringList(block.resources.kinds) : [];
  for (const key of ['all', 'any'] as const) {
    for (const filter of arrayOf(block[key])) {
      if (isObject(filter) && isObject(filter.resources)) kinds.push(...stringList(filter.resources.kinds));
    }
  }
  return kinds;
}

function filterHasKind(filter: JsonValue, kind: string): boolean {
  return isObject(filter) && isObject(filter.resources) && containsKind(stringList(filter.resources.kinds), kind);
}

function withKinds(filter: JsonValue, kinds: string[]): JsonValue {
  const f = isObject(filter) ? filter : {};
  return { ...f, resources: { ...(isObject(f.resources) ? f.resources : {}), kinds: [...kinds] } };
}

function nonEmptyConditions(value: JsonValue | undefined): boolean {
  if (Array.isArray(value)) return value.length > 0;
  if (isObject(value)) return arrayOf(value.any).length > 0 || arrayOf(value.all).length > 0;
  return false;
}

function arrayOf(value: JsonValue | undefined): JsonValue[] {
  return Array.isArray(value) ? value : [];
}

function stringList(value: JsonValue | undefined): string[] {
  return arrayOf(value).filter((v): v is string => typeof v === 'string');
}

function nonEmptyString(value: JsonValue | undefined): value is string {
  return typeof value === 'string' && value !== '';
}

function present(value: JsonValue | undefined): value is JsonValue {
  return value !== undefined && value !== null;
}

function compact(fields: Record<string, JsonValue | undefined>): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) out[key] = value;
  return out;
}
