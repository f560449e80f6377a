import type { PolicyException } from '../policy/types';
import {
  compileExceptionMatch,
  matchedNamespace,
  matchesExceptionResources,
  type ExceptionMatch,
  type MatchRequest,
} from '../match';
import { wildcardMatch } from '@edict/foundation';
import { checkConditions } from '../core/conditions';
import type { EvaluationContext } from '../variables';

/** `namespace/name`, as Kyverno names exceptions in messages and reports. */
export function exceptionKey(exception: PolicyException): string {
  const { namespace, name } = exception.metadata;
  return namespace ? `${namespace}/${name}` : name;
}

/**
 * The exceptions that name this policy and rule (a rule name listed in an exception also covers the
 * rule's autogen copies, since users write exceptions against the rules they wrote) and whose
 * `match` covers the request, in list order, once their `conditions` hold.
 *
 * Every rule of every policy asks on every request, so the list is indexed on first use and the
 * index kept while the list is (callers hand the same list until the exceptions change): by the
 * policy and rule they name, then by the namespaces they are limited to. Scanning the whole list
 * each time made every review cost in proportion to the cluster's exceptions.
 */
export function matchingExceptions(
  exceptions: readonly PolicyException[],
  policyKey: string,
  ruleName: string,
  request: MatchRequest,
  ctx: EvaluationContext,
): readonly PolicyException[] {
  if (exceptions.length === 0) return NONE;
  let index = indexes.get(exceptions);
  if (!index) {
    index = new ExceptionIndex(exceptions);
    indexes.set(exceptions, index);
  }
  const candidates = index.forRule(policyKey, ruleName).candidates(matchedNamespace(request));
  if (candidates.length === 0) return NONE;
  return candidates.filter(
    (exception) =>
      index.matcherOf(exception).matches(request) && checkConditions(exception.spec.conditions, ctx).passed,
  );
}

const NONE: readonly PolicyException[] = Object.freeze([]);

const indexes = new WeakMap<readonly PolicyException[], ExceptionIndex>();

/** A list's exceptions by the policy they name, and per rule once asked. */
class ExceptionIndex {
  /** In list order, each exception once per policy it names. */
  private readonly byPolicy = new Map<string, PolicyException[]>();
  private readonly byRule = new Map<string, Map<string, RuleExceptions>>();
  private readonly matchers = new Map<PolicyException, ExceptionMatch>();

  constructor(exceptions: readonly PolicyException[]) {
    for (const exception of exceptions) {
      for (const entry of exception.spec?.exceptions ?? []) {
        const policy = entry.policyName;
        if (typeof policy !== 'string') continue;
        const bucket = this.byPolicy.get(policy);
        if (!bucket) this.byPolicy.set(policy, [exception]);
        else if (bucket[bucket.length - 1] !== exception) bucket.push(exception);
      }
    }
  }

  /** Rule names come from the policies, not from requests: the entries stay as few as the rules. */
  forRule(policyKey: string, ruleName: string): RuleExceptions {
    let rules = this.byRule.get(policyKey);
    if (!rules) this.byRule.set(policyKey, (rules = new Map()));
    let found = rules.get(ruleName);
    if (!found) {
      const named = (this.byPolicy.get(policyKey) ?? []).filter((exception) =>
        namesRule(exception, policyKey, ruleName),
      );
      found = new RuleExceptions(named, (exception) => this.matcherOf(exception));
      rules.set(ruleName, found);
    }
    return found;
  }

  /** The exception's match prepared once (the interpreter's for what the compiler leaves). */
  matcherOf(exception: PolicyException): ExceptionMatch {
    let matcher = this.matchers.get(exception);
    if (!matcher) {
      const match = exception.spec.match;
      matcher = compileExceptionMatch(match) ?? { matches: (request) => matchesExceptionResources(match, request) };
      this.matchers.set(exception, matcher);
    }
    return matcher;
  }
}

/** One rule's exceptions: those limited to plain namespaces filed under them, the others apart. */
class RuleExceptions {
  private readonly anywhere: PolicyException[] = [];
  private readonly byNamespace = new Map<string, PolicyException[]>();
  /** List positions, to give the candidates of both kinds back in list order. */
  private readonly order = new Map<PolicyException, number>();

  constructor(named: readonly PolicyException[], matcherOf: (exception: PolicyException) => ExceptionMatch) {
    named.forEach((exception, position) => {
      this.order.set(exception, position);
      const namespaces = matcherOf(exception).namespaces;
      if (!namespaces) {
        this.anywhere.push(exception);
        return;
      }
      for (const namespace of namespaces) {
        const bucket = this.byNamespace.get(namespace);
        if (bucket) bucket.push(exception);
        else this.byNamespace.set(namespace, [exception]);
      }
    });
  }

  /** The exceptions that may match a resource in `namespace` (see `matchedNamespace`). */
  candidates(namespace: string): readonly PolicyException[] {
    const limited = this.byNamespace.get(namespace);
    if (!limited) return this.anywhere;
    if (this.anywhere.length === 0) return limited;
    return [...this.anywhere, ...limited].sort((a, b) => this.order.get(a)! - this.order.get(b)!);
  }
}

function namesRule(exception: PolicyException, policyKey: string, ruleName: string): boolean {
  return (exception.spec?.exceptions ?? []).some(
    (entry) =>
      entry.policyName === policyKey &&
      (entry.ruleNames ?? []).some(
        (pattern) =>
          wildcardMatch(pattern, ruleName) ||
          wildcardMatch(`autogen-${pattern}`, ruleName) ||
          wildcardMatch(`autogen-cronjob-${pattern}`, ruleName),
      ),
  );
}
