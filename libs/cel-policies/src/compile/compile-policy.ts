import type { KubeObject } from '@edict/foundation';
import type { PolicyFieldError } from '../api/types';
import type { CompiledValidatingPolicy } from './compiled-policy';

/** Everything wrong with a policy (schema-level and CEL compile/type-check), [] when it is valid. */
export function validatingPolicyErrors(_policy: KubeObject): PolicyFieldError[] {
  throw new Error('not built yet: validatingPolicyErrors');
}

/** Compiled once per policy object. Throws ValidatingPolicyError. */
export function compileValidatingPolicy(_policy: KubeObject): CompiledValidatingPolicy {
  throw new Error('not built yet: compileValidatingPolicy');
}
