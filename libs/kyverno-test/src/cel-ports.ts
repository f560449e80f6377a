import type { CelLibraryPorts } from '@edict/cel-policies';
import type { LoadedTest } from './types';

/**
 * The ports of Kyverno's CEL libraries a test's CEL policies read through, as Kyverno's CLI fakes
 * them offline. None is served yet: a policy that calls `http`, `resource`, `globalContext` or
 * `image` data then fails that expression with the library's "no port" error (fail closed).
 */
export function celPortsFor(_test: LoadedTest): CelLibraryPorts {
  return {};
}
