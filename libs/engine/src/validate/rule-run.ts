import type { JsonValue, KubeObject } from '@edict/foundation';
import type { ContextLoadOptions } from '../context-entries';
import type { Evaluators } from '../core/evaluators';
import type { ResourceRequest } from '../core/types';
import type { Rule } from '../policy/types';
import type { EvaluationContext } from '../variables';

/** Everything one rule's evaluation reads, shared by the handlers of each rule type. */
export interface RuleRun {
  readonly rule: Rule;
  readonly ctx: EvaluationContext;
  readonly request: ResourceRequest;
  /** The object under evaluation: the new object, or the old one for DELETE. */
  readonly resource: KubeObject;
  readonly context: ContextLoadOptions;
  /** CLI values for foreach loops: loop variable name → value per iteration. */
  readonly foreachValues?: Record<string, JsonValue[]>;
  /** The rule's compiled condition and substitution steps; the interpreter without them. */
  readonly evaluators?: Evaluators;
}
