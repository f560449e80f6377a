/** Injection token of the validated BackgroundConfig. */
export const BACKGROUND_CONFIG = Symbol('BACKGROUND_CONFIG');
