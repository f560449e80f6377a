/**
 * The port through which synchronize runs a GeneratingPolicy for one trigger: the same work an
 * UpdateRequest of the policy does (match, evaluate, create, or update when synchronized), wired
 * to the generate controller's function in the module. A port, so that the sync logic is tested
 * with a typed fake and the generation itself stays in one place.
 */
import type { CompiledGeneratingPolicy } from '@edict/cel-policies';
import type { KubeObject } from '@edict/foundation';

export interface GpolGenerationResult {
  /**
   * `generated`: `objects` are everything the policy asks for this trigger now (none when it no
   * longer matches). `skipped`: an exception applies, so what exists is left as it is.
   */
  readonly status: 'generated' | 'skipped';
  readonly objects: readonly KubeObject[];
}

export interface GpolGenerationOptions {
  /**
   * Evaluate only (Kyverno's cache restore): nothing is written; `objects` are the downstream
   * objects that exist (with their uid) and those that would be created or updated (without one).
   */
  readonly dryRun?: boolean;
}

export interface GpolGeneration {
  /** Throws when the evaluation or a write failed (nothing may be concluded from it). */
  generate(
    policy: CompiledGeneratingPolicy,
    trigger: KubeObject,
    options?: GpolGenerationOptions,
  ): Promise<GpolGenerationResult>;
}

export const GPOL_GENERATION = Symbol('GPOL_GENERATION');
