// @edict/cel-policies: Kyverno's CEL policy family (policies.kyverno.io): ValidatingPolicy and its
// Namespaced form, and the CEL PolicyException. Pure: everything it reads comes through interfaces.
export * from './api/types';
export { isValidatingPolicy, isCelPolicyException } from './api/kinds';
export { ValidatingPolicyError } from './compile/policy-error';
export type { CompiledValidatingPolicy } from './compile/compiled-policy';
export { compileValidatingPolicy, validatingPolicyErrors } from './compile/compile-policy';
export type { CelPolicyInput, CelPolicyContext, CelLibraryPorts } from './evaluate/input';
export { evaluateValidatingPolicy } from './evaluate/evaluate-policy';
export type { CompiledCelPolicyException } from './exceptions/compiled-exception';
export {
  compileCelPolicyException,
  celPolicyExceptionErrors,
  CelPolicyExceptionError,
} from './exceptions/compile-exception';
export { autogenConfigs, autogenStatus } from './autogen/autogen';
