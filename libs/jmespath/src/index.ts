// @edict/jmespath: Kyverno's JMESPath (the community implementation with Kyverno's semantics and
// custom functions, a direct evaluator for plain paths, evaluation budgets). Pure: it depends only
// on @edict/foundation.
export { compileJmesPath, compileDirectJmesPath, type JmesPathQuery, type JmesPathResult } from './query';
export { JmesPathError, JmesPathNotFoundError } from './errors';
export { setJmesPathClock } from './clock';
export { kyvernoFunctionNames } from './functions/register';
export { functionCatalogue, type FunctionEntry } from './functions/catalogue';
export type { JpType } from './runtime';
