import { deepEqual, type JsonObject, type JsonValue, type KubeObject } from '@edict/foundation';
import { substituteVariables, type EvaluationContext } from '../variables';
import { applyJson6902, applyStrategicMergePatch } from './patch';

/** The outcome of one mutation step (a rule, or one foreach element). */
export type MutateOutcome = { status: 'pass'; resource: KubeObject } | { status: 'skip' | 'error'; message: string };

export interface Patches {
  patchStrategicMerge?: JsonValue;
  patchesJson6902?: string;
}

/**
 * Substitutes variables in a rule's (or foreach element's) patches and applies them to the resource.
 * `documentPath` is where the patches sit in the document Kyverno substitutes, which `{{@}}` reads.
 * A patch that changes nothing is a skip ("no patches applied"), as in Kyverno.
 */
export function applyPatches(
  patches: Patches,
  resource: KubeObject,
  ctx: EvaluationContext,
  documentPath: string,
): MutateOutcome {
  const written: JsonObject = {};
  if (patches.patchStrategicMerge !== undefined) written.patchStrategicMerge = patches.patchStrategicMerge;
  if (patches.patchesJson6902 !== undefined) written.patchesJson6902 = patches.patchesJson6902;
  let substituted: Patches;
  try {
    substituted = substituteVariables(written, ctx, { path: documentPath }) as Patches;
  } catch (error) {
    return { status: 'error', message: `variable substitution failed: ${(error as Error).message}` };
  }
  const outcome =
    substituted.patchStrategicMerge !== undefined
      ? applyStrategicMergePatch(resource, substituted.patchStrategicMerge, ctx.budget)
      : substituted.patchesJson6902
        ? applyJson6902(resource, substituted.patchesJson6902, ctx.budget)
        : undefined;
  if (!outcome) return { status: 'error', message: 'empty mutate rule' };
  if (outcome.status === 'error') return { status: 'error', message: `failed to patch resource: ${outcome.message}` };
  if (outcome.status === 'skip') return outcome;
  if (deepEqual(outcome.resource, resource)) return { status: 'skip', message: 'no patches applied' };
  return { status: 'pass', resource: outcome.resource as KubeObject };
}
