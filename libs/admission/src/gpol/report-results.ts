import type { CompiledGeneratingPolicy } from '@edict/cel-policies';
import { policyReportResult, type Policy, type RuleResponse } from '@edict/engine';
import type { KubeObject } from '@edict/foundation';
import { isPolicyReportable, type ReportResult, type ResourceRef } from '../reports/report-results';
import { generatingPolicyKey } from './update-requests';

/** The `source` Kyverno gives results of GeneratingPolicies (reportutils.SourceGeneratingPolicy). */
export const GENERATING_POLICY_SOURCE = 'KyvernoGeneratingPolicy';

/**
 * Kyverno's `process` of a GeneratingPolicy result: always `admission review` (its generations are
 * answers to admission requests, even those replayed by generateExisting and synchronize).
 */
const GENERATING_PROCESS = 'admission review';

/**
 * One GeneratingPolicy rule response about its trigger as PolicyReport results (Kyverno's
 * ToPolicyReportResult for a GeneratingPolicy): the shared row (category, severity, scored, the
 * rule's properties such as audit annotations, the exceptions by name), source
 * `KyvernoGeneratingPolicy`, the policy named `name` or `namespace/name`, `process: admission
 * review`. Empty for a policy labelled `reports.kyverno.io/disabled` or a trigger without a name.
 * The objects written (`generated-resources`) are the caller's to add: it knows what was written.
 */
export function generatingPolicyReportResults(
  compiled: Pick<CompiledGeneratingPolicy, 'policy' | 'name' | 'namespace'>,
  rule: RuleResponse,
  trigger: KubeObject,
  now: Date,
): ReportResult[] {
  if (!isPolicyReportable(compiled.policy)) return [];
  const { name, namespace, uid } = trigger.metadata ?? {};
  if (!name) return [];
  const resource: ResourceRef = { apiVersion: trigger.apiVersion ?? '', kind: trigger.kind ?? '', name };
  if (namespace) resource.namespace = namespace;
  if (typeof uid === 'string' && uid !== '') resource.uid = uid;
  const metadata = compiled.policy.metadata as Policy['metadata'];
  const row = policyReportResult({ key: generatingPolicyKey(compiled), policy: { metadata } }, rule, now);
  row.source = GENERATING_POLICY_SOURCE;
  row.properties = { ...row.properties, process: GENERATING_PROCESS };
  return [{ ...row, resource, type: 'Generation' }];
}
