// @edict/admission: Kyverno's AdmissionReview logic, free of Nest, HTTP and Kubernetes clients.
export * from './review';
export * from './request';
export * from './config';
export * from './messages';
export * from './validate';
export * from './mutate';
export * from './background';
export * from './reports';
export * from './deadline';
export * from './vpol';
export * from './ivpol';
export * from './gpol';
export { allow, deny, type AdmissionDecision, type FailurePolicy } from './decision';
export {
  isEnforcing,
  policiesForPath,
  standardMutateRules,
  mutateExistingRules,
  type AdmissionEngine,
} from './policies';
