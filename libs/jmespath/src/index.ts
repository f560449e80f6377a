export { compileJmesPath, compileDirectJmesPath, type JmesPathQuery, type JmesPathResult } from './query';
export { JmesPathError, JmesPathNotFoundError } from './errors';
export { setJmesPathClock } from './clock';
export { kyvernoFunctionNames } from './functions/register';
