/**
 * The report Kyverno's background controller writes about a target a MutatingPolicy patched, when
 * `enableReporting` names mutateExisting (its BuildMutateExistingReport): an EphemeralReport about
 * the target (its identity, hash and owner reference), source `background-scan`, the policy's
 * result rows (source KyvernoMutatingPolicy, type Mutation) for a reportable policy. Nothing about a
 * target without a name or uid. Named from the UpdateRequest and the target, so a retried request
 * meets the same report.
 */
import { mutatingPolicyReportResults } from '@edict/admission';
import type { CompiledMutatingPolicy, MutatingPolicyResult } from '@edict/cel-policies';
import type { KubeObject } from '@edict/foundation';
import {
  buildUpdateRequestReport,
  celReportPolicy,
  reportSubject,
  toPolicyReportResult,
  type EphemeralReportObject,
} from '@edict/reports';

export function mutateExistingReport(
  compiled: CompiledMutatingPolicy,
  result: MutatingPolicyResult,
  target: KubeObject,
  requestKey: string,
  now: Date,
): EphemeralReportObject | undefined {
  const subject = reportSubject(target);
  if (!subject) return undefined;
  const rows = mutatingPolicyReportResults(
    { compiled, response: result.response },
    { operation: 'UPDATE', resource: target },
    now,
  ).map(toPolicyReportResult);
  if (rows.length === 0) return undefined;
  return buildUpdateRequestReport({
    requestKey: `${requestKey}/${subject.trigger.uid}`,
    ...subject,
    policy: celReportPolicy(compiled),
    results: rows,
  });
}
