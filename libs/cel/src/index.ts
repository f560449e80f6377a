// @edict/cel: the CEL environment (Kubernetes' CEL libraries on cel-js, cost limits, the authorizer),
// shared by validate.cel rules, ValidatingAdmissionPolicy and, next, Kyverno's CEL policies. Pure:
// it depends only on @edict/foundation.
export {
  compileCel,
  CelCompileError,
  describe as describeCelError,
  type CelProgram,
  type CelResultType,
  type CelVariables,
} from './compile';
export { CelJsonPatch, CelObject, objectTypeNameErrors } from './libraries/mutation';
export { CelMeter, CelLimitExceeded } from './meter';
export { CEL_LIMITS, type CelLimits } from './limits';
export { toCel } from './values';
export { celToJson } from './kyverno/values';
export { AccessReviews, CelAuthorizer, CelResourceCheck } from './libraries/authz';
export type { AccessReviewDecision, AccessReviewRequest, AccessReviewSubject } from './access-review';
export { kyvernoActivation } from './kyverno/activation';
export { IMAGE_VERIFIER_KEY, type CelImageVerifier } from './kyverno/image-verify';
export { expressionsUseIdentifier, HTTP_IN_NAMESPACED_POLICY } from './kyverno/identifiers';
export {
  CelPortError,
  KYVERNO_CEL_LIMITS,
  type CelGeneratorPort,
  type CelGlobalContextPort,
  type CelGroupVersionResource,
  type CelHttpMethod,
  type CelHttpPort,
  type CelHttpRequest,
  type CelHttpResponse,
  type CelImageDataPort,
  type CelPortCall,
  type CelResourcePort,
  type CelResourceTarget,
  type KyvernoCelLimits,
  type KyvernoCelPorts,
  type KyvernoCelScope,
} from './kyverno/ports';
export {
  checkCelTypes,
  DYN as CEL_DYN,
  formatCelIssues,
  schemaType,
  type CelCheckedType,
  type CelTypedVariables,
  type CelTypeIssue,
  type SchemaDefinitions,
} from './typecheck';
