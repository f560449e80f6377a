import type { KubeObject } from '@edict/foundation';
import type { PolicyFieldError } from '../api/types';
import type { CompiledCelPolicyException } from './compiled-exception';

export function celPolicyExceptionErrors(_exception: KubeObject): PolicyFieldError[] {
  throw new Error('not built yet: celPolicyExceptionErrors');
}

export function compileCelPolicyException(_exception: KubeObject): CompiledCelPolicyException {
  throw new Error('not built yet: compileCelPolicyException');
}
