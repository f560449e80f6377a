import { EvaluationDeadlineExceeded, errorMessage, jsonSizeWithin, type JsonValue } from '@edict/foundation';
import { celError } from '../libraries/errors';
import { CelLimitExceeded } from '../meter';
import {
  CelPortError,
  KYVERNO_CEL_LIMITS,
  type CelPortCall,
  type KyvernoCelLimits,
  type KyvernoCelScope,
} from './ports';

/**
 * The port calls of one evaluation (one activation): counted against `maxCalls`, refused once the
 * deadline passed, each given an abort signal for the time left, and their answers measured. The
 * call limit is sticky: once passed, every later call fails, so CEL's error absorption (`||`,
 * quantifiers) cannot hide it.
 */
export class KyvernoCalls {
  readonly limits: KyvernoCelLimits;
  private count = 0;
  /** Answers of reads made in this evaluation, by what was asked. */
  private readonly answers = new Map<string, unknown>();
  private exceededWith: CelLimitExceeded | undefined;

  constructor(readonly scope: KyvernoCelScope) {
    this.limits = { ...KYVERNO_CEL_LIMITS, ...scope.limits };
  }

  /** Set once more calls were made than allowed. */
  get exceeded(): CelLimitExceeded | undefined {
    return this.exceededWith;
  }

  /**
   * Runs one port call. `failure` words a thrown error (`failed to get resource`); a port's
   * Forbidden/Unauthorized answer reads "permission denied" as in Kyverno. The result is checked
   * with `measure` (JSON values by default) against maxResponseBytes.
   */
  run<T>(
    failure: string,
    call: (port: CelPortCall) => T | Promise<T>,
    measure: (value: T) => JsonValue | undefined = (value) => value as JsonValue | undefined,
    /** For reads: the same key answers from the first call (an expression and its message often ask twice). */
    key?: string,
  ): T | Promise<T> {
    if (this.exceededWith) throw this.exceededWith;
    if (key !== undefined) {
      if (this.answers.has(key)) return this.answers.get(key) as T | Promise<T>;
      const answer = this.call(failure, call, measure);
      this.answers.set(key, answer);
      return answer;
    }
    return this.call(failure, call, measure);
  }

  private call<T>(
    failure: string,
    call: (port: CelPortCall) => T | Promise<T>,
    measure: (value: T) => JsonValue | undefined,
  ): T | Promise<T> {
    if (this.scope.deadline?.expired()) throw new EvaluationDeadlineExceeded();
    if (++this.count > this.limits.maxCalls) {
      this.exceededWith = new CelLimitExceeded(
        `Kyverno CEL library calls exceed the limit of ${this.limits.maxCalls} per evaluation`,
      );
      throw this.exceededWith;
    }
    const remaining = this.scope.deadline?.remainingMs?.();
    const port: CelPortCall = {
      maxResponseBytes: this.limits.maxResponseBytes,
      ...(remaining !== undefined ? { signal: AbortSignal.timeout(Math.max(0, Math.ceil(remaining))) } : {}),
    };
    const done = (value: T): T => {
      const json = measure(value);
      if (
        json !== undefined &&
        jsonSizeWithin(json, this.limits.maxResponseBytes, new Map()) > this.limits.maxResponseBytes
      ) {
        throw celError(`${failure}: the answer is larger than ${this.limits.maxResponseBytes} bytes`);
      }
      return value;
    };
    const failed = (error: unknown): never => {
      if (error instanceof EvaluationDeadlineExceeded || error instanceof CelLimitExceeded) throw error;
      if (this.scope.deadline?.expired()) throw new EvaluationDeadlineExceeded();
      const denied = error instanceof CelPortError && (error.reason === 'Forbidden' || error.reason === 'Unauthorized');
      throw celError(`${failure}: ${denied ? 'permission denied: ' : ''}${errorMessage(error)}`);
    };
    let result: T | Promise<T>;
    try {
      result = call(port);
    } catch (error) {
      return failed(error);
    }
    if (result instanceof Promise) return result.then(done, failed);
    return done(result);
  }
}

/** The error of a library whose port the caller did not give. */
export function missingPort(library: string, what: string): Error {
  return celError(`${library} is not available: ${what} (no such port was given to this evaluation)`);
}
