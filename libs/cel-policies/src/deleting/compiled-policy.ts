import type { KubeObject } from '@edict/foundation';
import type { CronSchedule } from '@edict/engine';
import type { MatchResources } from '../api/types';
import type { CompiledSpec, NamedProgram } from '../compile/compiled-expressions';
import type { DeletingPolicyKind, DeletionPropagation } from './types';

/** A DeletingPolicy compiled once: what the cleanup controller and the CLI need to know and run. */
export interface CompiledDeletingPolicy {
  readonly policy: KubeObject;
  readonly kind: DeletingPolicyKind;
  readonly name: string;
  /** NamespacedDeletingPolicy: its namespace; it only ever deletes objects there. */
  readonly namespace?: string;
  /** spec.schedule as written. */
  readonly schedule: string;
  readonly deletionPropagationPolicy?: DeletionPropagation;
  /** matchConstraints as written (operations play no part: there is no request). */
  readonly matchConstraints: MatchResources;
}

/** What the evaluator runs; kept off the public CompiledDeletingPolicy. */
export interface DeletingPolicyPrograms {
  readonly cron: CronSchedule;
  /** The variables (and the empty lists of a spec), for SpecRun. */
  readonly spec: CompiledSpec;
  readonly conditions: readonly NamedProgram[];
  /** Whether an expression reads a Kyverno library variable (`resource`, `http`, ...): bound only then. */
  readonly readsLibraries: boolean;
}
