import { compileJmesPath } from '@edict/jmespath';
import type { ContextEntry, Rule } from '../policy';
import { wildcardMatch, errorMessage } from '@edict/foundation';
import { goList } from './go-text';

/**
 * Kyverno validates a rule's variables against a mock context: a variable is accepted when its
 * expression matches a fixed regular expression of built-in roots (deliberately unanchored, as in
 * Kyverno: `foo.request` passes) or a wildcard pattern derived from the rule's context entries.
 * The Go source of each expression is kept for the error message, which users compare.
 */
interface Allowance {
  readonly re: RegExp;
  readonly source: string;
}

function allowance(source: string): Allowance {
  return { re: new RegExp(source), source };
}

const FUNCTION_CALL = '([a-z_0-9]+\\()[^{}]';
const ALLOWED = allowance(
  `request|serviceAccountName|serviceAccountNamespace|element|elementIndex|@|images|image|${FUNCTION_CALL}`,
);
const ALLOWED_BACKGROUND = allowance(`request\\.|element|elementIndex|@|images|images\\.|image\\.|${FUNCTION_CALL}`);
const ALLOWED_IN_TARGET = allowance(
  `request\\.|serviceAccountName|serviceAccountNamespace|element|elementIndex|@|images|images\\.|image\\.|target\\.|${FUNCTION_CALL}`,
);
const ALLOWED_BACKGROUND_IN_TARGET = allowance(
  `request\\.|element|elementIndex|@|images|images\\.|image\\.|target\\.|${FUNCTION_CALL}`,
);

/** `[a, b]` multi-select: each identifier is checked on its own. */
const MULTI_SELECT = /^\s*\[\s*([^[\]]+)\]\s*/;

export class VariableAllowance {
  private readonly allowed: Allowance;

  constructor(
    background: boolean,
    target: boolean,
    private readonly patterns: readonly string[],
  ) {
    this.allowed = target
      ? background
        ? ALLOWED_BACKGROUND_IN_TARGET
        : ALLOWED_IN_TARGET
      : background
        ? ALLOWED_BACKGROUND
        : ALLOWED;
  }

  /** Undefined when the expression is allowed, otherwise Kyverno's reason. */
  check(expression: string): string | undefined {
    const query = expression.trim();
    if (query === '') return 'invalid query (nil)';
    try {
      compileJmesPath(query);
    } catch (error) {
      return `invalid JMESPath query ${query}: ${errorMessage(error)}`;
    }
    const unquoted = query.split('"').join('');
    if (this.isAllowed(unquoted)) return undefined;
    const multi = MULTI_SELECT.exec(unquoted);
    if (multi) {
      for (const raw of multi[1]!.split(',')) {
        const ident = raw.trim();
        if (ident !== '' && !this.isAllowed(ident)) return this.reason(ident);
      }
      return undefined;
    }
    return this.reason(unquoted);
  }

  private isAllowed(query: string): boolean {
    return this.allowed.re.test(query) || this.patterns.some((pattern) => wildcardMatch(pattern, query));
  }

  private reason(variable: string): string {
    return `variable ${variable} must match regex "${this.allowed.source}" or patterns ${goList(this.patterns)}`;
  }
}

/** The patterns context entries make available (Kyverno's addContextVariables). */
export function entryPatterns(entries: readonly ContextEntry[] | undefined): string[] {
  const patterns: string[] = [];
  for (const entry of entries ?? []) {
    if (!entry || typeof entry.name !== 'string') continue;
    if (entry.apiCall || entry.globalReference || entry.imageRegistry || entry.variable)
      patterns.push(`${entry.name}*`);
    if (entry.configMap) {
      patterns.push(`${entry.name}.data`, `${entry.name}.metadata`, `${entry.name}.data.*`, `${entry.name}.metadata.*`);
    }
  }
  return patterns;
}

/** The patterns all of a rule's context entries (and attestations) make available. */
export function contextPatterns(rule: Rule): string[] {
  const attestations = (rule.verifyImages ?? []).flatMap(
    (verification) => (verification as { attestations?: { name?: string }[] }).attestations ?? [],
  );
  return [
    ...entryPatterns(rule.context),
    ...attestations.flatMap((a) => (a && typeof a.name === 'string' ? [`${a.name}*`] : [])),
    ...(rule.validate?.foreach ?? []).flatMap((fe) => entryPatterns(fe.context)),
    ...(rule.mutate?.foreach ?? []).flatMap((fe) => entryPatterns(fe.context)),
    ...(rule.mutate?.targets ?? []).flatMap((target) => entryPatterns(target.context)),
    ...(rule.generate?.foreach ?? []).flatMap((fe) => entryPatterns(fe.context)),
  ];
}
