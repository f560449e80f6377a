/** Injection tokens of the kube module. */
export const KUBE_OPTIONS = Symbol('KUBE_OPTIONS');
/** The loaded `KubeConfig`. */
export const KUBE_CONFIG = Symbol('KUBE_CONFIG');
export const CORE_V1_API = Symbol('CORE_V1_API');
export const COORDINATION_V1_API = Symbol('COORDINATION_V1_API');
export const ADMISSIONREGISTRATION_V1_API = Symbol('ADMISSIONREGISTRATION_V1_API');
export const CUSTOM_OBJECTS_API = Symbol('CUSTOM_OBJECTS_API');
export const KUBERNETES_OBJECT_API = Symbol('KUBERNETES_OBJECT_API');
