/**
 * Size bounds of one evaluation. Sizes are JSON-encoded sizes, counting a string's characters.
 * Zero disables a bound.
 */
export interface EvaluationLimits {
  /**
   * The rule context entries together (Kyverno's `maxContextSize`, default 2 MiB): what the
   * context entries of a rule and of its foreach iterations add to the context.
   */
  maxContextSize: number;
  /** Any value a JMESPath expression builds: function results, projections, multi-selects. */
  maxResultSize: number;
  /**
   * Any document a mutate or generate rule builds: the resource after each JSON-patch operation and
   * each strategic merge, a strategic merge patch after substitution, each generated object (the
   * objects of one rule together: four times as much).
   */
  maxDocumentSize: number;
  /**
   * What one rule may do, foreach loops included: JSON-patch operations, strategic merges, foreach
   * elements of mutate and generate loops (nested loops multiply), generated objects.
   */
  maxRuleOperations: number;
}

/** Kyverno's default context size bound (2 MiB), used for both bounds. */
export const DEFAULT_MAX_CONTEXT_SIZE = 2 * 1024 * 1024;

/**
 * 3 MiB: the largest request body the API server accepts, so no object it could store is refused,
 * and a patch chain stops long before it can exhaust the heap.
 */
export const DEFAULT_MAX_DOCUMENT_SIZE = 3 * 1024 * 1024;

/** Generous for real loops (250 containers x 40 variables is 10,000) and a few seconds of work at most. */
export const DEFAULT_MAX_RULE_OPERATIONS = 100_000;

export const DEFAULT_EVALUATION_LIMITS: Readonly<EvaluationLimits> = Object.freeze({
  maxContextSize: DEFAULT_MAX_CONTEXT_SIZE,
  maxResultSize: DEFAULT_MAX_CONTEXT_SIZE,
  maxDocumentSize: DEFAULT_MAX_DOCUMENT_SIZE,
  maxRuleOperations: DEFAULT_MAX_RULE_OPERATIONS,
});

/** A size bound was passed: the rule being evaluated ends in `error` with this message. */
export class EvaluationLimitExceeded extends Error {
  override readonly name = 'EvaluationLimitExceeded';
  private located = false;

  /** Names the JMESPath expression where the limit was passed (the innermost one, once). */
  locate(expression: string): void {
    if (this.located) return;
    this.located = true;
    const shown = expression.length > 200 ? `${expression.slice(0, 200)}...` : expression;
    this.message += ` in ${JSON.stringify(shown)}`;
  }
}

/** `2 MiB`, `512 KiB`, `100 bytes`: a bound as people write it. */
export function formatSize(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}
