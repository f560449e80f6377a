/**
 * Chainsaw's test format after loading: durations in milliseconds (before scaling), expressions
 * and resources kept as written (they are templated when the operation runs).
 */
import type { JsonObject, JsonValue } from '@edict/foundation';

export type TimeoutKind = 'apply' | 'assert' | 'cleanup' | 'delete' | 'error' | 'exec';
export type Timeouts = Partial<Record<TimeoutKind, number>>;

export interface BindingSpec {
  readonly name: string;
  readonly value: JsonValue;
}

export interface OutputSpec {
  readonly name: string;
  readonly value: JsonValue;
  readonly match?: JsonValue;
}

export interface Expectation {
  readonly match?: JsonValue;
  readonly check: JsonValue;
}

interface OperationBase {
  /** 0-based position in its block. */
  readonly index: number;
  readonly description?: string;
  readonly continueOnError: boolean;
  readonly bindings: readonly BindingSpec[];
  readonly outputs: readonly OutputSpec[];
  /** Operation-level timeout override, milliseconds. */
  readonly timeout?: number;
}

/** apply, create, update, patch, assert, error and delete work on a file or an inline resource. */
export interface ResourceOperation extends OperationBase {
  readonly type: 'apply' | 'create' | 'update' | 'patch' | 'assert' | 'error' | 'delete';
  /** As written: a path relative to the test folder (may be an expression or a glob). */
  readonly file?: string;
  readonly resource?: JsonObject;
  /** delete's `ref`: apiVersion, kind, name, namespace, labels. */
  readonly ref?: JsonObject;
  readonly template?: boolean;
  readonly expect: readonly Expectation[];
  readonly deletionPropagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
}

export interface EnvSpec {
  readonly name: string;
  readonly value: JsonValue;
}

export interface ExecOperation extends OperationBase {
  readonly type: 'script' | 'command';
  /** script: the shell text run by `sh -c`. */
  readonly content?: string;
  /** command: the program and its arguments. */
  readonly entrypoint?: string;
  readonly args: readonly string[];
  readonly env: readonly EnvSpec[];
  readonly check?: JsonValue;
  readonly workDir?: string;
  readonly skipLogOutput: boolean;
}

export interface SleepOperation extends OperationBase {
  readonly type: 'sleep';
  readonly duration: number;
}

export interface WaitOperation extends OperationBase {
  readonly type: 'wait';
  readonly apiVersion: string;
  readonly kind: string;
  readonly name?: string;
  readonly namespace?: string;
  readonly selector?: string;
  readonly for: { readonly deletion?: boolean; readonly condition?: { name: string; value?: string } };
}

/** Read-only operations that only print (describe, events, podLogs, get, proxy): accepted, no effect. */
export interface LogOperation extends OperationBase {
  readonly type: 'describe' | 'events' | 'podLogs' | 'get' | 'proxy';
}

export type Operation = ResourceOperation | ExecOperation | SleepOperation | WaitOperation | LogOperation;
export type OperationType = Operation['type'];

export interface Step {
  readonly name: string;
  readonly description?: string;
  readonly timeouts: Timeouts;
  readonly bindings: readonly BindingSpec[];
  readonly template?: boolean;
  readonly skipDelete?: boolean;
  readonly deletionPropagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
  readonly try: readonly Operation[];
  readonly catch: readonly Operation[];
  readonly finally: readonly Operation[];
  readonly cleanup: readonly Operation[];
}

export interface ChainsawTest {
  readonly name: string;
  /** The file the test was read from, and its folder (relative paths resolve there). */
  readonly file: string;
  readonly folder: string;
  readonly metadata: JsonObject;
  readonly description?: string;
  readonly skip: boolean;
  readonly concurrent?: boolean;
  readonly namespace?: string;
  readonly timeouts: Timeouts;
  readonly bindings: readonly BindingSpec[];
  readonly template?: boolean;
  readonly skipDelete?: boolean;
  readonly delayBeforeCleanup?: number;
  readonly deletionPropagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
  readonly catch: readonly Operation[];
  readonly steps: readonly Step[];
}

export interface ChainsawConfiguration {
  /** Where it came from; undefined for the built-in defaults. */
  readonly file?: string;
  readonly timeouts: Timeouts;
  readonly namespace?: string;
  readonly skipDelete: boolean;
  readonly delayBeforeCleanup?: number;
  readonly template: boolean;
  readonly failFast: boolean;
  readonly deletionPropagationPolicy: 'Background' | 'Foreground' | 'Orphan';
  readonly fastDelete: boolean;
}

/** Chainsaw's defaults (its documentation: timeouts, templating on since 0.2.1). */
export const DEFAULT_TIMEOUTS: Readonly<Record<TimeoutKind, number>> = {
  apply: 5_000,
  assert: 30_000,
  cleanup: 30_000,
  delete: 15_000,
  error: 30_000,
  exec: 5_000,
};

export const DEFAULT_CONFIGURATION: ChainsawConfiguration = {
  timeouts: {},
  skipDelete: false,
  template: true,
  failFast: false,
  deletionPropagationPolicy: 'Background',
  fastDelete: false,
};
