/**
 * Which ValidatingPolicies (and ImageValidatingPolicies) a background scan runs on a resource, as
 * Kyverno's background scan does for them: `evaluation.background.enabled` (default true, admission-disabled ones included), a
 * NamespacedValidatingPolicy only on its own namespace's resources, and only policies whose
 * `matchConstraints.resourceRules` (with autogen's) can name the resource's group, version and plural;
 * the engine decides the rest of the match. Also the resource types those rules name, for the
 * scan controller to watch.
 */
import type { CompiledValidatingPolicy, NamedRuleWithOperations } from '@edict/cel-policies';

/** What scan selection reads of a compiled CEL policy (ValidatingPolicy and ImageValidatingPolicy alike). */
export type ScannedCelPolicy = Pick<
  CompiledValidatingPolicy,
  'background' | 'namespace' | 'matchConstraints' | 'name' | 'policy'
> & { readonly kind: string };

/** A resource type as the API names it in admission (group, version, plural). */
export interface ScannedResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

export function backgroundValidatingPoliciesFor<T extends ScannedCelPolicy>(
  policies: readonly T[],
  resource: ScannedResource,
  namespace: string | undefined,
): T[] {
  return policies.filter(
    (compiled) =>
      compiled.background &&
      (compiled.namespace === undefined || (namespace !== undefined && compiled.namespace === namespace)) &&
      (compiled.matchConstraints.resourceRules ?? []).some((rule) => namesResource(rule, resource)),
  );
}

/** Whether some background ValidatingPolicy's resource rules can name `resource` (a type worth watching). */
export function scannedByValidatingPolicies(policies: readonly ScannedCelPolicy[], resource: ScannedResource): boolean {
  return policies.some(
    (compiled) =>
      compiled.background &&
      (compiled.matchConstraints.resourceRules ?? []).some((rule) => namesResource(rule, resource)),
  );
}

/** `name@generation` of each policy: what a resource's scan memory compares. */
export function validatingPoliciesSignature(policies: readonly ScannedCelPolicy[]): string {
  return policies
    .map((compiled) => {
      const metadata = compiled.policy.metadata ?? {};
      const version = metadata.generation ?? metadata.resourceVersion ?? '';
      return `${compiled.kind}/${compiled.namespace ?? ''}/${compiled.name}=${String(version)}`;
    })
    .join(',');
}

/** A rule names the resource (never a subresource: scans look at objects); `*` is Kubernetes' only wildcard here. */
export function namesResource(rule: NamedRuleWithOperations, resource: ScannedResource): boolean {
  const any = (list: readonly string[] | undefined, value: string) =>
    (list ?? []).some((entry) => entry === '*' || entry === value);
  return (
    any(rule.apiGroups, resource.group) &&
    any(rule.apiVersions, resource.version) &&
    any(rule.resources, resource.resource)
  );
}
