export { EvaluationContext, type DeferredLoad } from './context';
export {
  isSubstitutionConstant,
  prepareSubstitution,
  substituteVariables,
  type PreparedSubstitution,
  type SubstitutionOptions,
} from './substitute';
export { VariableSubstitutionError, ContextQueryError } from './errors';
export { hasVariables, findVariables } from './find';
export { serviceAccountOf } from './request-context';
