import type { JsonValue } from '@edict/foundation';
import type { Policy, PolicyException } from '../policy';
import { validateExceptionSchema, validatePolicySchema } from '../policy';
import { isTypeMismatch, type Report } from '../policy/schema-dsl';
import type { Findings } from './findings';

/**
 * The semantic checks assume the field types Kyverno's CRD schema guarantees. Edict's CRDs now carry
 * that schema and its webhooks refuse what it refuses (crdRefusal), but the policy cache and the CLI
 * can still hand over anything (a policy stored before, a file). Each field of the wrong
 * type is reported with its path; when there is one, the caller stops there. The schema's other
 * findings (missing or unknown fields, ranges) are left to the semantic checks, which word them as
 * Kyverno does.
 */
export function policyWrongTypes(policy: Policy, namespaced: boolean, findings: Findings): boolean {
  // Against v1 whatever the apiVersion: its fields are a superset of v2beta1's, and the checks read
  // the legacy ones (`match.resources`, `match.subjects`) too, which a v2beta1 schema calls unknown.
  return wrongTypes(findings, (report) =>
    validatePolicySchema(policy as unknown as JsonValue, 'v1', namespaced, report),
  );
}

export function exceptionWrongTypes(exception: PolicyException, findings: Findings): boolean {
  return wrongTypes(findings, (report) => validateExceptionSchema(exception as unknown as JsonValue, report));
}

function wrongTypes(findings: Findings, check: (report: Report) => void): boolean {
  let found = false;
  check((path, message, severity) => {
    if (severity === 'warning' || !isTypeMismatch(message)) return;
    found = true;
    findings.error(path, message);
  });
  return found;
}
