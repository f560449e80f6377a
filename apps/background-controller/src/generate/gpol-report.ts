/**
 * The report Kyverno's CEL generate controller writes about a GeneratingPolicy's trigger (its
 * BuildGenerateReport, when `enableReporting` names generate): an EphemeralReport about the trigger
 * (its identity, hash and owner reference), source `background-scan`, one result row for the
 * policy (source KyvernoGeneratingPolicy, `process: admission review`, the audit annotations and
 * exceptions as properties), and `generated-resources` naming the objects written when some were.
 * Nothing for a policy left out of reports, a trigger without a name or uid, or an Event (Kyverno
 * does not let an Event own a report). Named from the UpdateRequest, so a retry meets the same report.
 */
import { generatingPolicyReportResults } from '@edict/admission';
import type { KubeObject } from '@edict/foundation';
import {
  buildUpdateRequestReport,
  celReportPolicy,
  reportedObject,
  reportSubject,
  toPolicyReportResult,
  type EphemeralReportObject,
} from '@edict/reports';
import type { GeneratedFor } from './gpol-request';

export function generationReport(
  generated: GeneratedFor,
  requestKey: string,
  now: Date,
): EphemeralReportObject | undefined {
  const { compiled, trigger, generation } = generated;
  const subject = reportSubject(trigger);
  if (!generation.result || !subject || trigger.kind === 'Event') return undefined;
  const property = generatedResourcesProperty(generation.generated);
  const rows = generatingPolicyReportResults(compiled, generation.result.rule, trigger, now).map((row) =>
    toPolicyReportResult(property ? { ...row, properties: { ...row.properties, ...property } } : row),
  );
  if (rows.length === 0) return undefined;
  return buildUpdateRequestReport({ requestKey, ...subject, policy: celReportPolicy(compiled), results: rows });
}

/** Kyverno's `generated-resources`: each object written, `; `-separated; none when nothing was. */
function generatedResourcesProperty(written: readonly KubeObject[]): Record<string, string> | undefined {
  if (written.length === 0) return undefined;
  return { 'generated-resources': written.map((object) => reportedObject(object)).join('; ') };
}
