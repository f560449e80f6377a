/**
 * Whether a ClusterPolicy (with the PolicyExceptions that name its rule) can become a
 * ValidatingAdmissionPolicy, as Kyverno decides: one rule, a `validate.cel` block with `generate:
 * true`, no failure-action overrides per namespace, and match/exclude blocks a VAP's match
 * constraints can say (no user info, annotations, wildcard names or namespaces, no selectors in
 * exclusions, at most one `all` entry). When not, the message Kyverno writes to the policy's status.
 */
import type {
  FailureActionOverride,
  MatchResources,
  Policy,
  PolicyException,
  ResourceDescription,
  ResourceFilter,
  UserInfoFilter,
} from '@edict/engine';
import { hasWildcard } from '@edict/foundation';

export type Eligibility = { readonly ok: true } | { readonly ok: false; readonly message: string };

const OK: Eligibility = { ok: true };
const SKIP = 'skip generating ValidatingAdmissionPolicy';
const no = (message: string): Eligibility => ({ ok: false, message });

/** Whether `policy` and `exceptions` translate to a ValidatingAdmissionPolicy; the first reason when not. */
export function canGenerateVap(policy: Policy, exceptions: readonly PolicyException[]): Eligibility {
  const checked = checkPolicy(policy);
  return checked.ok ? checkExceptions(exceptions) : checked;
}

/** Kyverno's `validate.cel.generate`: a VAP is generated only when it is true. */
export function celGenerateRequested(policy: Policy): boolean {
  const cel = policy.spec?.rules?.[0]?.validate?.cel as { generate?: unknown } | undefined;
  return cel?.generate === true;
}

function checkPolicy(policy: Policy): Eligibility {
  const rules = policy.spec?.rules ?? [];
  if (rules.length === 0) return no(`${SKIP}: no rules found.`);
  if (rules.length > 1) return no(`${SKIP}: multiple rules are not applicable.`);
  const rule = rules[0];
  if (!rule.validate?.cel) return no(`${SKIP} for non CEL rules.`);
  if (!celGenerateRequested(policy)) return no(`${SKIP}: validate.cel.generate is not set to true.`);
  return first(
    () => checkOverrides(policy.spec.validationFailureActionOverrides),
    () => checkOverrides(rule.validate?.failureActionOverrides),
    () => checkBlock(rule.match, true, 'match'),
    () => (rule.exclude ? checkBlock(rule.exclude, false, 'exclude') : OK),
  );
}

function checkBlock(block: MatchResources | undefined, isMatch: boolean, name: 'match' | 'exclude'): Eligibility {
  if (!block) return OK;
  return first(
    () => checkUserInfo(block),
    () => checkResources(block.resources ?? {}, isMatch),
    () => checkFilters(block.any ?? [], isMatch),
    () => ((block.all ?? []).length > 1 ? no(`${SKIP}: multiple 'all' in the ${name} block is not applicable.`) : OK),
    () => checkFilters(block.all ?? [], isMatch),
  );
}

function checkExceptions(exceptions: readonly PolicyException[]): Eligibility {
  for (const exception of exceptions) {
    const spec = exception.spec ?? ({} as PolicyException['spec']);
    for (const entry of spec.exceptions ?? []) {
      if ((entry.ruleNames ?? []).length > 1) {
        return no(`${SKIP}: multiple ruleNames in PolicyException is not applicable.`);
      }
    }
    if (spec.conditions !== undefined && spec.conditions !== null) {
      return no(`${SKIP}: Conditions in PolicyException is not applicable.`);
    }
    const match = spec.match ?? {};
    const checked = first(
      () => checkFilters(match.any ?? [], false),
      () =>
        (match.all ?? []).length > 1
          ? no(`${SKIP}: multiple 'all' in the PolicyException's match block is not applicable.`)
          : OK,
      () => checkFilters(match.all ?? [], false),
    );
    if (!checked.ok) return checked;
  }
  return OK;
}

function checkOverrides(overrides: readonly FailureActionOverride[] | undefined): Eligibility {
  const list = overrides ?? [];
  if (list.length > 1) return no(`${SKIP}: multiple validationFailureActionOverrides are not applicable.`);
  if (list.length === 1 && (list[0].namespaces ?? []).length > 0) {
    return no(`${SKIP}: Namespaces in validationFailureActionOverrides is not applicable.`);
  }
  return OK;
}

function checkUserInfo(info: UserInfoFilter): Eligibility {
  const empty =
    (info.roles ?? []).length === 0 && (info.clusterRoles ?? []).length === 0 && (info.subjects ?? []).length === 0;
  return empty ? OK : no(`${SKIP}: Roles / ClusterRoles / Subjects in \`any/all\` is not applicable.`);
}

function checkResources(resource: ResourceDescription, isMatch: boolean): Eligibility {
  if (!isMatch && (resource.kinds ?? []).length > 0 && (resource.namespaces ?? []).length > 0) {
    return no(`${SKIP}: excluding a resource within a namespace is not applicable.`);
  }
  if (Object.keys(resource.annotations ?? {}).length > 0) {
    return no(`${SKIP}: Annotations in resource description is not applicable.`);
  }
  const names = [...(resource.name ? [resource.name] : []), ...(resource.names ?? [])];
  if (names.some(hasWildcard)) return no(`${SKIP}: wildcards in resource name is not applicable.`);
  if ((resource.namespaces ?? []).some(hasWildcard)) {
    return no(`${SKIP}: wildcards in namespace name is not applicable.`);
  }
  return OK;
}

function checkFilters(filters: readonly ResourceFilter[], isMatch: boolean): Eligibility {
  let selectors = false;
  for (const filter of filters) {
    const checked = first(
      () => checkUserInfo(filter),
      () => checkResources(filter.resources ?? {}, isMatch),
    );
    if (!checked.ok) return checked;
    if (filter.resources?.namespaceSelector || filter.resources?.selector) selectors = true;
  }
  if (!isMatch && selectors) {
    return no(`${SKIP}: NamespaceSelector / ObjectSelector in the exclude block is not applicable.`);
  }
  if (isMatch && filters.length > 1 && selectors) {
    return no(
      `${SKIP}: NamespaceSelector / ObjectSelector across multiple resources in the match block are not applicable.`,
    );
  }
  return OK;
}

function first(...checks: (() => Eligibility)[]): Eligibility {
  for (const check of checks) {
    const result = check();
    if (!result.ok) return result;
  }
  return OK;
}
