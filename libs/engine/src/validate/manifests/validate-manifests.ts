import type { RuleResponse } from '../../core/types';
import { ruleResponse } from '../../core/responses';
import type { RuleRun } from '../rule-run';
import { verifyAttestorSet, type AttestorContext } from './attestors';
import { ignoreFieldBindings } from './ignore-fields';
import { parseManifests } from './spec';
import { errorMessage } from '@edict/foundation';

/**
 * Kyverno's `validate.manifests` handler: the resource must match a YAML manifest signed by the
 * rule's attestors (k8s-manifest-sigstore signatures in its annotations). Every attestor set must
 * pass. Works offline: inline PEM public keys only; OCI bundles, keyless and certificates answer
 * `error`. No response on DELETE, as Kyverno's handler is not created for deletions.
 */
export function validateManifests(run: RuleRun): RuleResponse | undefined {
  if (run.request.operation === 'DELETE') return undefined;
  const { rule } = run;
  let spec;
  try {
    spec = parseManifests(rule.validate?.manifests ?? {});
  } catch (error) {
    return ruleResponse(rule, 'Validation', 'error', `invalid manifests rule: ${errorMessage(error)}`);
  }
  if (run.request.dryRun === true) return ruleResponse(rule, 'Validation', 'pass', 'allowed because of DryRun request');

  const context: AttestorContext = {
    domain: spec.annotationDomain,
    bindings: ignoreFieldBindings(spec.ignoreFields, spec.annotationDomain),
    shared: { bundleRef: spec.repository },
  };
  const verified: string[] = [];
  for (const [i, set] of spec.attestors.entries()) {
    let outcome;
    try {
      outcome = verifyAttestorSet(run.resource, set, context, `.attestors[${i}]`);
    } catch (error) {
      return ruleResponse(
        rule,
        'Validation',
        'error',
        `error occurred during manifest verification: ${errorMessage(error)}`,
      );
    }
    if (!outcome.verified) return ruleResponse(rule, 'Validation', 'fail', outcome.reason);
    verified.push(outcome.reason);
  }
  return ruleResponse(rule, 'Validation', 'pass', `verified manifest signatures; ${verified.join(',')}`);
}
