/**
 * Which ValidatingPolicies a background scan runs on a resource, as Kyverno's background scan does
 * for them: `evaluation.background.enabled` (default true, admission-disabled ones included), a
 * NamespacedValidatingPolicy only on its own namespace's resources, and only policies whose
 * `matchConstraints.resourceRules` (with autogen's) can name the resource's group, version and plural;
 * the engine decides the rest of the match. Also the resource types those rules name, for the
 * scan controller to watch.
 */
import type { CompiledValidatingPolicy, NamedRuleWithOperations } from '@edict/cel-policies';

/** A resource type as the API names it in admission (group, version, plural). */
export interface ScannedResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

export function backgroundValidatingPoliciesFor(
  policies: readonly CompiledValidatingPolicy[],
  resource: ScannedResource,
  namespace: string | undefined,
): CompiledValidatingPolicy[] {
  return policies.filter(
    (compiled) =>
      compiled.background &&
      (compiled.kind === 'ValidatingPolicy' || (namespace !== undefined && compiled.namespace === namespace)) &&
      (compiled.matchConstraints.resourceRules ?? []).some((rule) => namesResource(rule, resource)),
  );
}

/** Whether some background ValidatingPolicy's resource rules can name `resource` (a type worth watching). */
export function scannedByValidatingPolicies(
  policies: readonly CompiledValidatingPolicy[],
  resource: ScannedResource,
): boolean {
  return policies.some(
    (compiled) =>
      compiled.background &&
      (compiled.matchConstraints.resourceRules ?? []).some((rule) => namesResource(rule, resource)),
  );
}

/** `name@generation` of each policy: what a resource's scan memory compares. */
export function validatingPoliciesSignature(policies: readonly CompiledValidatingPolicy[]): string {
  return policies
    .map((compiled) => {
      const metadata = compiled.policy.metadata ?? {};
      const version = metadata.generation ?? metadata.resourceVersion ?? '';
      return `${compiled.kind}/${compiled.namespace ?? ''}/${compiled.name}=${String(version)}`;
    })
    .join(',');
}

/** A rule names the resource (never a subresource: scans look at objects); `*` is Kubernetes' only wildcard here. */
function namesResource(rule: NamedRuleWithOperations, resource: ScannedResource): boolean {
  const any = (list: readonly string[] | undefined, value: string) =>
    (list ?? []).some((entry) => entry === '*' || entry === value);
  return (
    any(rule.apiGroups, resource.group) &&
    any(rule.apiVersions, resource.version) &&
    any(rule.resources, resource.resource)
  );
}
