import { isObject, type JsonValue, type KubeObject, errorMessage } from '@edict/foundation';
import { loadContextEntries } from '../context-entries';
import { INTERPRETER, type Evaluators } from '../core/evaluators';
import type { MaybePromise } from '../core/maybe-promise';
import { ruleError, ruleResponse } from '../core/responses';
import type { RuleResponse } from '../core/types';
import type { Conditions, ContextEntry, ForEachValidation, Rule } from '../policy/types';
import { substituteVariables } from '../variables';
import { validateManifests } from './manifests';
import type { RuleRun } from './rule-run';
import { unsupportedValidation } from './unsupported-validation';

/** The parts of a validate rule or of one of its foreach blocks that a validator evaluates. */
interface ValidationBody {
  context?: ContextEntry[];
  preconditions?: Conditions;
  pattern?: JsonValue;
  anyPattern?: JsonValue[];
  deny?: { conditions?: Conditions };
  foreach?: ForEachValidation[];
}

/**
 * Kyverno's validate handler for `pattern`, `anyPattern`, `deny` and `foreach`. Returns undefined when
 * the rule produces no response (e.g. a pattern rule on a DELETE), as Kyverno drops those.
 */
export function validateResource(run: RuleRun): MaybePromise<RuleResponse | undefined> {
  const validation = run.rule.validate!;
  // Kyverno picks the manifest handler before the pattern/deny one.
  if (validation.manifests !== undefined && validation.manifests !== null) return validateManifests(run);
  const unsupported = unsupportedValidation(validation);
  if (unsupported !== undefined) {
    // Kyverno's handlers for these types do not run on DELETE either.
    return run.request.operation === 'DELETE'
      ? undefined
      : ruleResponse(run.rule, 'Validation', 'error', unsupported.reason);
  }
  return new Validator(run, validation, 0, undefined).validate();
}

class Validator {
  constructor(
    private readonly run: RuleRun,
    private readonly body: ValidationBody,
    private readonly nesting: number,
    /** The foreach element a scoped pattern is checked against. */
    private readonly element: KubeObject | undefined,
  ) {}

  private get rule(): Rule {
    return this.run.rule;
  }

  private get evaluate(): Evaluators {
    return this.run.evaluators ?? INTERPRETER;
  }

  /** Synchronous unless the body (or a foreach inside it) loads a context entry from outside. */
  validate(): MaybePromise<RuleResponse | undefined> {
    if (!this.body.context || this.body.context.length === 0) return this.afterContext();
    const loaded = loadContextEntries(this.body.context, this.run.ctx, this.run.context);
    const contextError = (error: unknown) => ruleError(this.rule, 'Validation', 'failed to load context', error);
    if (loaded instanceof Promise) return loaded.then(() => this.afterContext(), contextError);
    return this.afterContext();
  }

  private afterContext(): MaybePromise<RuleResponse | undefined> {
    let preconditions;
    try {
      preconditions = this.evaluate.conditions(this.body.preconditions, this.run.ctx);
    } catch (error) {
      return ruleError(this.rule, 'Validation', 'failed to evaluate preconditions', error);
    }
    if (!preconditions.passed) return ruleResponse(this.rule, 'Validation', 'skip', 'preconditions not met');

    if (this.body.deny) return this.validateDeny(this.body.deny.conditions);
    if (this.body.pattern !== undefined || this.body.anyPattern !== undefined) return this.validatePatterns();
    if (this.body.foreach) return this.validateForeach(this.body.foreach);
    return undefined;
  }

  private validateDeny(conditions: Conditions | undefined): RuleResponse {
    let outcome;
    try {
      outcome = this.evaluate.conditions(conditions ?? {}, this.run.ctx);
    } catch (error) {
      return ruleError(this.rule, 'Validation', 'failed to check deny conditions', error);
    }
    if (!outcome.passed) {
      return ruleResponse(this.rule, 'Validation', 'pass', `validation rule '${this.rule.name}' passed.`);
    }
    return ruleResponse(this.rule, 'Validation', 'fail', this.denyMessage(outcome.message));
  }

  /** The rule's message followed by the messages of the conditions that denied, as Kyverno joins them. */
  private denyMessage(conditionMessages: string): string {
    const text = [this.rule.validate?.message ?? '', conditionMessages].filter(Boolean).join('; ');
    if (!text) return `validation error: rule ${this.rule.name} failed`;
    try {
      const resolved = substituteVariables(text, this.run.ctx);
      return typeof resolved === 'string'
        ? resolved
        : "the produced message didn't resolve to a string, check your policy definition.";
    } catch {
      return conditionMessages;
    }
  }

  private validatePatterns(): RuleResponse | undefined {
    let pattern: JsonValue | undefined;
    let anyPattern: JsonValue[] | undefined;
    try {
      if (this.body.pattern !== undefined) pattern = this.evaluate.substitute(this.body.pattern, this.run.ctx);
      else anyPattern = this.evaluate.substitute(this.body.anyPattern as JsonValue, this.run.ctx) as JsonValue[];
    } catch (error) {
      return ruleError(this.rule, 'Validation', 'variable substitution failed', error);
    }
    const target = this.element ?? (this.run.request.operation === 'DELETE' ? undefined : this.run.resource);
    if (!target) return undefined;
    return pattern !== undefined ? this.checkPattern(target, pattern) : this.checkAnyPattern(target, anyPattern);
  }

  private checkPattern(target: KubeObject, pattern: JsonValue): RuleResponse {
    const result = this.evaluate.matchPattern(target, pattern, this.run.ctx.budget);
    if (result.status === 'pass') {
      return ruleResponse(this.rule, 'Validation', 'pass', `validation rule '${this.rule.name}' passed.`);
    }
    if (result.status === 'skip') return ruleResponse(this.rule, 'Validation', 'skip', result.message);
    if (!result.path) return ruleResponse(this.rule, 'Validation', 'error', this.patternMessage(result.message, ''));
    return ruleResponse(this.rule, 'Validation', 'fail', this.patternMessage(result.message, result.path));
  }

  private checkAnyPattern(target: KubeObject, anyPattern: JsonValue[] | undefined): RuleResponse {
    if (!Array.isArray(anyPattern)) {
      return ruleResponse(this.rule, 'Validation', 'error', 'failed to deserialize anyPattern, expected type array');
    }
    const failures: string[] = [];
    const skips: string[] = [];
    for (const [index, pattern] of anyPattern.entries()) {
      const result = this.evaluate.matchPattern(target, pattern, this.run.ctx.budget);
      if (result.status === 'pass') {
        return ruleResponse(
          this.rule,
          'Validation',
          'pass',
          `validation rule '${this.rule.name}' anyPattern[${index}] passed.`,
        );
      }
      const label = `rule ${this.rule.name}[${index}]`;
      if (result.status === 'skip') skips.push(`${label} skipped: ${result.message}`);
      else failures.push(result.path ? `${label} failed at path ${result.path}` : `${label} failed: ${result.message}`);
    }
    if (failures.length === 0 && skips.length > 0)
      return ruleResponse(this.rule, 'Validation', 'skip', skips.join(' '));
    const message = this.resolvedMessage();
    const details = failures.join(' ');
    const text = !message
      ? `validation error: ${details}`
      : `validation error: ${message}${message.endsWith('.') ? '' : '.'} ${details}`;
    return ruleResponse(this.rule, 'Validation', 'fail', text);
  }

  /** The rule's message with its variables substituted (as written when they cannot be, kyverno#8095). */
  private resolvedMessage(): string | undefined {
    const message = this.rule.validate?.message;
    if (!message) return message;
    try {
      const resolved = substituteVariables(message, this.run.ctx);
      return typeof resolved === 'string' ? resolved : JSON.stringify(resolved);
    } catch {
      return message;
    }
  }

  /** Kyverno's wording for a failed pattern: the rule message, then where the resource diverged. */
  private patternMessage(detail: string, path: string): string {
    const name = this.rule.name;
    const message = this.rule.validate?.message;
    if (!message) {
      return path
        ? `validation error: rule ${name} failed at path ${path}`
        : `validation error: rule ${name} execution error: ${detail}`;
    }
    let resolved: JsonValue;
    try {
      resolved = substituteVariables(message, this.run.ctx);
    } catch {
      return `validation error: variables substitution error in rule ${name} execution error: ${detail}`;
    }
    let text = typeof resolved === 'string' ? resolved : JSON.stringify(resolved);
    if (!text.endsWith('.')) text += '.';
    return path
      ? `validation error: ${text} rule ${name} failed at path ${path}`
      : `validation error: ${text} rule ${name} execution error: ${detail}`;
  }

  private validateForeach(loops: ForEachValidation[]): MaybePromise<RuleResponse | undefined> {
    return this.loopsFrom(loops, 0, 0);
  }

  /** The loops from `start` on, `applied` elements having passed before; resumes after an asynchronous loop. */
  private loopsFrom(
    loops: ForEachValidation[],
    start: number,
    applied: number,
  ): MaybePromise<RuleResponse | undefined> {
    for (let index = start; index < loops.length; index++) {
      const loop = loops[index]!;
      let elements: JsonValue[];
      try {
        elements = this.evaluate.foreachList(loop.list, this.run.ctx);
      } catch {
        continue; // Kyverno skips a list it cannot evaluate
      }
      const outcome = this.validateElements(loop, elements);
      if (outcome instanceof Promise) {
        return outcome.then(({ response, count }) =>
          response.status !== 'pass' ? response : this.loopsFrom(loops, index + 1, applied + count),
        );
      }
      if (outcome.response.status !== 'pass') return outcome.response;
      applied += outcome.count;
    }
    if (applied === 0) return ruleResponse(this.rule, 'Validation', 'skip', 'rule skipped');
    return ruleResponse(this.rule, 'Validation', 'pass', 'rule passed');
  }

  /** One loop's elements, each in a fresh copy of the context saved here (restored once all are done). */
  private validateElements(loop: ForEachValidation, elements: JsonValue[]): MaybePromise<ElementsOutcome> {
    const ctx = this.run.ctx;
    ctx.checkpoint();
    let outcome: MaybePromise<ElementsOutcome>;
    try {
      outcome = this.elementsFrom(loop, elements, 0, 0);
    } catch (error) {
      ctx.restore();
      throw error;
    }
    if (!(outcome instanceof Promise)) {
      ctx.restore();
      return outcome;
    }
    return outcome.finally(() => ctx.restore());
  }

  /** The elements from `start` on, `count` having passed before; resumes after an asynchronous element. */
  private elementsFrom(
    loop: ForEachValidation,
    elements: JsonValue[],
    start: number,
    count: number,
  ): MaybePromise<ElementsOutcome> {
    const ctx = this.run.ctx;
    const loopValues = this.run.foreachValues;
    for (let index = start; index < elements.length; index++) {
      const element = elements[index];
      ctx.budget.checkDeadline();
      // Giving way resumes at this same element, with the turn renewed.
      const paused = ctx.budget.pause();
      if (paused) return paused.then(() => this.elementsFrom(loop, elements, index, count));
      if (element === null || element === undefined) continue;
      ctx.reset();
      if (loopValues) {
        for (const [name, values] of Object.entries(loopValues)) {
          if (index < values.length) ctx.add(name, values[index]!);
        }
      }
      const scoped = this.elementScope(loop, element);
      if (typeof scoped === 'string') {
        return {
          response: ruleResponse(this.rule, 'Validation', 'error', `failed to process foreach: ${scoped}`),
          count,
        };
      }
      ctx.addElement(element, index, this.nesting);
      const inner = new Validator(this.run, loop, this.nesting + 1, scoped ?? this.element);
      let result: MaybePromise<RuleResponse | undefined>;
      try {
        result = inner.validate();
      } catch (error) {
        result = this.elementError(error);
      }
      if (result instanceof Promise) {
        return result
          .catch((error: unknown) => this.elementError(error))
          .then((settled) => {
            const decided = this.elementDecision(settled, index, elements.length, count);
            return decided.done ? decided.outcome : this.elementsFrom(loop, elements, index + 1, decided.count);
          });
      }
      const decided = this.elementDecision(result, index, elements.length, count);
      if (decided.done) return decided.outcome;
      count = decided.count;
    }
    return { response: ruleResponse(this.rule, 'Validation', 'pass', ''), count };
  }

  private elementError(error: unknown): RuleResponse {
    return ruleResponse(this.rule, 'Validation', 'error', errorMessage(error));
  }

  /**
   * What one element's result means for its loop: skipped and passed elements go on (a pass
   * counts); a failure ends the loop, and so does an error on the last element only, as in Kyverno.
   */
  private elementDecision(
    result: RuleResponse | undefined,
    index: number,
    length: number,
    count: number,
  ): { done: true; outcome: ElementsOutcome } | { done: false; count: number } {
    if (!result || result.status === 'skip') return { done: false, count };
    if (result.status === 'pass') return { done: false, count: count + 1 };
    if (result.status === 'error' && index < length - 1) return { done: false, count };
    return {
      done: true,
      outcome: {
        response: ruleResponse(this.rule, 'Validation', result.status, `validation failure: ${result.message}`),
        count,
      },
    };
  }

  /** Map elements scope the pattern to the element unless `elementScope: false`; returns an error text when misused. */
  private elementScope(loop: ForEachValidation, element: JsonValue): KubeObject | undefined | string {
    const isMap = isObject(element);
    if (loop.elementScope === true && !isMap) {
      return `cannot use elementScope=true foreach rules for elements that are not maps, expected type=map got type=${typeof element}`;
    }
    const scoped = loop.elementScope ?? isMap;
    return scoped ? (element as KubeObject) : undefined;
  }
}

/** How one foreach loop's elements went: the loop's response (pass unless an element decided) and the passes. */
interface ElementsOutcome {
  response: RuleResponse;
  count: number;
}
