import type { Policy } from '../policy';
import { isObject, type Diagnostic } from '@edict/foundation';
import type { PolicyCheck, RuleCheck } from './check-context';
import { checkRuleConditions } from './conditions';
import { checkRuleContext } from './context-entries';
import { Findings, objectLabel } from './findings';
import { checkGenerateRule } from './generate-rule';
import { checkGenerateUpdate } from './generate-update';
import { DEFAULT_CLUSTER_SCOPED_KINDS } from './kinds';
import { checkMatchBlocks } from './match';
import { checkMatchExcludeConflict } from './match-exclude-conflict';
import { checkMutateRule } from './mutate-rule';
import { checkPodSecurityRule } from './pod-security';
import { checkPolicySpec } from './policy-spec';
import { checkBackgroundSubresources, checkRuleKinds } from './rule-kinds';
import { checkRuleType } from './rule-type';
import { imageVerificationProblems } from '../verify-images/policy-checks';
import { readImageVerification } from '../verify-images/spec';
import { checkValidateRule } from './validate-rule';
import {
  checkBackgroundVariables,
  checkElementOutsideForeach,
  checkForbiddenVariableSections,
  checkRuleVariables,
} from './variables';
import { ruleWarnings } from './warnings';
import { policyWrongTypes } from './wrong-types';

export interface PolicyValidationOptions {
  /** Validate as a namespaced `Policy`; defaults to `kind === 'Policy'`. */
  namespaced?: boolean;
  /**
   * Background processing as the variable checks see it; defaults to `spec.background` (true when
   * unset). Pass false to validate as Kyverno does for a policy that never runs in the background.
   */
  background?: boolean;
  /** Extra cluster-scoped kinds (CRDs) on top of the built-in Kubernetes ones. */
  clusterScopedKinds?: Iterable<string>;
  /**
   * The checks Kyverno's admission webhook makes with the cluster's API resources, which its CLI
   * skips: a validate rule of a background policy may not select a subresource.
   */
  againstCluster?: boolean;
  /**
   * The policy as stored before this update (the admission request's oldObject): changes to its
   * generate rules are checked against it.
   */
  previous?: Policy;
  /** Copied into each diagnostic's `file`. */
  file?: string;
}

/**
 * Kyverno's semantic policy validation (what its admission webhook and CLI run on a ClusterPolicy or
 * Policy beyond the CRD schema). Errors mean Kyverno would reject the policy; warnings are what its
 * webhook returns as admission warnings. Unlike Kyverno, which stops at the first error, every
 * problem found is reported.
 */
export function validatePolicy(policy: Policy, options: PolicyValidationOptions = {}): Diagnostic[] {
  const namespaced = options.namespaced ?? policy.kind === 'Policy';
  const findings = new Findings({
    file: options.file ?? '',
    object: objectLabel(policy.kind, policy.metadata?.name, 'ClusterPolicy'),
  });
  const clusterKinds = options.clusterScopedKinds
    ? new Set([...DEFAULT_CLUSTER_SCOPED_KINDS, ...options.clusterScopedKinds])
    : DEFAULT_CLUSTER_SCOPED_KINDS;
  const check: PolicyCheck = {
    policy,
    namespaced,
    namespace: namespaced ? policy.metadata?.namespace || 'default' : '',
    background: options.background ?? policy.spec?.background !== false,
    clusterKinds,
    againstCluster: options.againstCluster ?? false,
    findings,
  };
  if (!policy.spec || !Array.isArray(policy.spec.rules)) {
    findings.error(['spec', 'rules'], 'a policy needs a list of rules');
    return findings.diagnostics;
  }
  if (policyWrongTypes(policy, namespaced, findings)) return findings.diagnostics;
  checkPolicySpec(check);
  if (options.previous) checkGenerateUpdate(check, options.previous);
  const ruleChecks: RuleCheck[] = policy.spec.rules.map((rule, index) => ({
    ...check,
    rule,
    index,
    path: ['spec', 'rules', index],
  }));

  // Variables first: Kyverno checks them before anything else, and a background-mode violation
  // stops it before the variables are resolved against each rule's context.
  const backgroundProblem = checkBackgroundVariables(check);
  for (const c of ruleChecks) {
    checkForbiddenVariableSections(c);
    if (!backgroundProblem) checkRuleVariables(c);
  }
  for (const c of ruleChecks) {
    checkRuleType(c);
    checkMatchExcludeConflict(c);
    checkMatchBlocks(c);
    checkPodSecurityRule(c);
    checkGenerateRule(c);
    checkRuleKinds(c);
    checkBackgroundSubresources(c);
    checkElementOutsideForeach(c);
    checkRuleContext(c);
    checkRuleConditions(c);
    checkValidateRule(c);
    checkMutateRule(c);
    checkImageVerification(c);
    checkImageExtractorsJmesPath(c);
    ruleWarnings(c);
  }
  return findings.diagnostics;
}

/** Kyverno's ImageVerification.Validate for each verifyImages entry of the rule. */
function checkImageVerification(c: RuleCheck): void {
  for (const problem of imageVerificationProblems(c.policy, c.rule))
    c.findings.error([...c.path, ...problem.path], problem.message);
}

/** A rule that mutates image digests may not extract images with JMESPath (validateRuleImageExtractorsJMESPath). */
function checkImageExtractorsJmesPath(c: RuleCheck): void {
  const { imageExtractors, verifyImages } = c.rule;
  if (!isObject(imageExtractors) || !verifyImages) return;
  if (!verifyImages.some((raw) => readImageVerification(raw).mutateDigest)) return;
  const usesJmesPath = Object.values(imageExtractors).some(
    (list) =>
      Array.isArray(list) && list.some((e) => isObject(e) && typeof e.jmesPath === 'string' && e.jmesPath !== ''),
  );
  if (usesJmesPath) {
    c.findings.error(
      [...c.path, 'imageExtractors'],
      'jmespath may not be used in an image extractor when mutating digests with verify images',
    );
  }
}
