export {
  compileCel,
  CelCompileError,
  describe as describeCelError,
  type CelProgram,
  type CelVariables,
} from './compile';
export { CelMeter, CelLimitExceeded } from './meter';
export { CEL_LIMITS } from './limits';
export { toCel } from './values';
export { AccessReviews, CelAuthorizer, CelResourceCheck } from './libraries/authz';
