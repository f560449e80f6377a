/** Injection token of the validated ControllerConfig. */
export const CONTROLLER_CONFIG = Symbol('CONTROLLER_CONFIG');
