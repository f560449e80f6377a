// Test support for specs of this lib and its users: admission attributes built from an object, and
// ValidatingAdmissionPolicies, bindings and objects to run them on.
export { attributesFor, namespace } from './attributes';
export { binding, configMap, deployment, DEPLOYMENT_RULES, vap } from './policies';
