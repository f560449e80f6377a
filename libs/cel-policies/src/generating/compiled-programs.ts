import type { CelProgram } from '@edict/cel';
import type { CompiledSpec } from '../compile/compiled-expressions';
import type { CompiledTemplate } from './template';

/** One `spec.generate[]` entry compiled: an expression calling `generator.Apply`, or a template. */
export type CompiledGeneration =
  | { readonly index: number; readonly program: CelProgram; readonly reads: readonly string[] }
  | { readonly index: number; readonly template: CompiledTemplate; readonly reads: readonly string[] };

/** What the evaluator runs; kept off the public CompiledGeneratingPolicy. */
export interface GeneratingPrograms {
  /** Match conditions and variables (the ValidatingPolicy machinery; no validations). */
  readonly spec: CompiledSpec;
  readonly generations: readonly CompiledGeneration[];
}
