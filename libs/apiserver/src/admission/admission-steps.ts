/**
 * A write is written once, as a generator that yields its admission steps (mutate, then validate)
 * and finally returns its result. `admit` runs it through an admission chain (the HTTP API and
 * in-process users); `withoutAdmission` runs the same steps as the cluster itself writes (the direct
 * typed client, the garbage collector): nothing is changed or refused, so it completes at once.
 */
import type { JsonObject } from '@edict/foundation';
import type { AdmissionAttributes, AdmissionChain } from './types';

export interface AdmissionStep {
  readonly phase: 'mutate' | 'validate';
  readonly attributes: AdmissionAttributes;
}

/** A write that yields admission steps and is sent back the (possibly mutated) object after each. */
export type AdmittedWrite<T> = Generator<AdmissionStep, T, JsonObject | undefined>;

/** The chain of a server without admission plugins or webhooks. */
export const NO_ADMISSION: AdmissionChain = {
  mutate: async (attributes) => attributes.object,
  validate: async () => undefined,
};

export async function admit<T>(write: AdmittedWrite<T>, chain: AdmissionChain, warnings: string[]): Promise<T> {
  let next = write.next();
  while (!next.done) {
    const { phase, attributes } = next.value;
    let answer: JsonObject | undefined;
    try {
      if (phase === 'mutate') answer = await chain.mutate(attributes, warnings);
      else await chain.validate(attributes, warnings);
    } catch (error) {
      // Thrown into the write, so that it can retry (a patch on a conflict) as it would after an await.
      next = write.throw(error);
      continue;
    }
    next = write.next(answer);
  }
  return next.value;
}

export function withoutAdmission<T>(write: AdmittedWrite<T>): T {
  let next = write.next();
  while (!next.done) next = write.next(next.value.phase === 'mutate' ? next.value.attributes.object : undefined);
  return next.value;
}
