import type { CompiledValidatingPolicy } from '@edict/cel-policies';
import { policyReportResult, type Policy, type PolicyResponse, type ResourceRequest } from '@edict/engine';
import { isPolicyReportable, type ReportResult, type ResourceRef } from '../reports/report-results';
import { validatingPolicyKey } from './select';

/** The `source` Kyverno gives results of ValidatingPolicies (reportutils.SourceValidatingPolicy). */
export const VALIDATING_POLICY_SOURCE = 'KyvernoValidatingPolicy';

/** The `source` of ImageValidatingPolicy results (reportutils.SourceImageValidatingPolicy). */
export const IMAGE_VALIDATING_POLICY_SOURCE = 'KyvernoImageValidatingPolicy';

/** Kyverno's IsPolicyReportable for a compiled CEL policy (see `isPolicyReportable`). */
export function isReportable(compiled: Pick<CompiledValidatingPolicy, 'policy'>): boolean {
  return isPolicyReportable(compiled.policy);
}

/**
 * Kyverno's `process` property: `background scan` when the policy runs in background scans, else
 * `admission review` when it runs at admission.
 */
export function processOf(compiled: Pick<CompiledValidatingPolicy, 'background' | 'admission'>): string {
  return compiled.background ? 'background scan' : compiled.admission ? 'admission review' : '';
}

/**
 * One ValidatingPolicy response as PolicyReport results (Kyverno's ToPolicyReportResult for a
 * ValidatingPolicy): the shared row (category, severity, scored, exceptions, properties), with
 * source `KyvernoValidatingPolicy`, the policy named `name` or `namespace/name`, and the `process`
 * property. Empty for a policy labelled `reports.kyverno.io/disabled`.
 */
export function validatingPolicyReportResults(
  compiled: Pick<CompiledValidatingPolicy, 'policy' | 'name' | 'namespace' | 'background' | 'admission'>,
  response: PolicyResponse,
  request: ResourceRequest,
  now: Date,
  source: string = VALIDATING_POLICY_SOURCE,
): ReportResult[] {
  if (!isReportable(compiled)) return [];
  const object = request.resource ?? request.oldResource;
  const { apiVersion, kind, name, namespace } = response.resource;
  const resource: ResourceRef = { apiVersion, kind, name };
  if (namespace) resource.namespace = namespace;
  const uid = object?.metadata?.uid;
  if (typeof uid === 'string' && uid !== '') resource.uid = uid;
  const metadata = compiled.policy.metadata as Policy['metadata'];
  const reported = { key: validatingPolicyKey(compiled), policy: { metadata } };
  const process = processOf(compiled);
  return response.rules.map((rule) => {
    const row = policyReportResult(reported, rule, now);
    row.source = source;
    row.properties = { ...row.properties, process };
    return { ...row, resource, type: 'Validation' as const };
  });
}
