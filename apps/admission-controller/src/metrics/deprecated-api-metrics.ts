/**
 * Kyverno's `kyverno_deprecated_api_requests_total` (pkg/metrics/deprecated_api_requests.go), by
 * `group`, `version`, `kind` and `field`: counted by the policy and exception validation webhooks for
 * each write that uses a deprecated apiVersion of a Kyverno kind (`field` empty; the table of
 * pkg/deprecations) or a deprecated policy field (`field` its path, as Kyverno's CheckPolicy names
 * it). A request from a namespace the `kyverno-metrics` ConfigMap leaves out is not counted. The
 * field paths carry a rule index, so the label sets are capped (then one `overflow` series).
 */
import { MetricsConfiguration, TalliedMetrics } from '@edict/controller-runtime';
import type { AdmissionRequest } from '@edict/admission';
import type { AdmissionMetrics } from './admission-metrics';

export const DEPRECATED_API_REQUESTS_TOTAL = 'kyverno_deprecated_api_requests_total';

/** Label sets kept for the metric. */
const MAX_SERIES = 200;

/** Kyverno's deprecated `<apiVersion> <Kind>` of its own kinds. */
const DEPRECATED_API_VERSIONS: ReadonlySet<string> = new Set([
  'kyverno.io/v2beta1 ClusterPolicy',
  'kyverno.io/v2beta1 Policy',
  'kyverno.io/v2beta1 PolicyException',
  'kyverno.io/v2beta1 CleanupPolicy',
  'kyverno.io/v2beta1 ClusterCleanupPolicy',
  'kyverno.io/v2alpha1 GlobalContextEntry',
]);

interface PolicySpec {
  readonly validationFailureAction?: unknown;
  readonly failurePolicy?: unknown;
  readonly webhookTimeoutSeconds?: unknown;
  readonly generateExistingOnPolicyUpdate?: unknown;
  readonly mutateExistingOnPolicyUpdate?: unknown;
  readonly rules?: readonly {
    readonly verifyImages?: readonly {
      readonly image?: unknown;
      readonly key?: unknown;
      readonly roots?: unknown;
      readonly attestations?: readonly { readonly predicateType?: unknown }[];
    }[];
    readonly validate?: { readonly assert?: unknown };
  }[];
}

const set = (value: unknown) => value !== undefined && value !== null && value !== '' && value !== false;
/** A list field, or none when the spec holds something else there. */
const list = <T>(value: readonly T[] | undefined): readonly T[] => (Array.isArray(value) ? value : []);

/** The deprecated fields a ClusterPolicy or Policy spec uses (Kyverno's CheckPolicy), by path. */
export function deprecatedPolicyFields(spec: PolicySpec | undefined): string[] {
  if (!spec) return [];
  const fields: string[] = [];
  if (set(spec.validationFailureAction)) fields.push('spec.validationFailureAction');
  if (spec.failurePolicy !== undefined && spec.failurePolicy !== null) fields.push('spec.failurePolicy');
  if (spec.webhookTimeoutSeconds !== undefined && spec.webhookTimeoutSeconds !== null)
    fields.push('spec.webhookTimeoutSeconds');
  if (spec.generateExistingOnPolicyUpdate !== undefined && spec.generateExistingOnPolicyUpdate !== null)
    fields.push('spec.generateExistingOnPolicyUpdate');
  if (spec.mutateExistingOnPolicyUpdate === true) fields.push('spec.mutateExistingOnPolicyUpdate');
  list(spec.rules).forEach((rule, i) => {
    for (const verify of list(rule?.verifyImages)) {
      if (set(verify?.image)) fields.push(`rules[${i}].verifyImages.image`);
      if (set(verify?.key)) fields.push(`rules[${i}].verifyImages.key`);
      if (set(verify?.roots)) fields.push(`rules[${i}].verifyImages.roots`);
      list(verify?.attestations).forEach((attestation, k) => {
        if (set(attestation?.predicateType)) fields.push(`rules[${i}].verifyImages.attestations[${k}].predicateType`);
      });
    }
    if (rule?.validate?.assert !== undefined && rule.validate.assert !== null)
      fields.push(`rules[${i}].validate.assert`);
  });
  return fields;
}

export class DeprecatedApiMetrics {
  private readonly requests = new TalliedMetrics(['group', 'version', 'kind', 'field'] as const, [], MAX_SERIES);

  constructor(
    metrics: AdmissionMetrics,
    private readonly configuration: MetricsConfiguration = MetricsConfiguration.DEFAULT,
  ) {
    this.requests.registerCounter(
      metrics.registry,
      DEPRECATED_API_REQUESTS_TOTAL,
      'can be used to track requests using deprecated kyverno policy APIs and fields',
    );
  }

  /** A write the policy or exception webhook answers. */
  record(request: AdmissionRequest): void {
    if (request.operation !== 'CREATE' && request.operation !== 'UPDATE') return;
    if (!this.configuration.checkNamespace(request.namespace)) return;
    // The version the client wrote (the API server may convert it for the webhook).
    const { group, version, kind } = request.requestKind ?? request.kind;
    const apiVersion = group ? `${group}/${version}` : version;
    const count = (field: string) => this.requests.observe([group, version, kind, field], 0, 0);
    if (DEPRECATED_API_VERSIONS.has(`${apiVersion} ${kind}`)) count('');
    if (group === 'kyverno.io' && (kind === 'ClusterPolicy' || kind === 'Policy'))
      for (const field of deprecatedPolicyFields((request.object as { spec?: PolicySpec } | null)?.spec)) count(field);
  }
}
