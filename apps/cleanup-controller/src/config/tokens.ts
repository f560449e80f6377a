/** Injection token of the validated CleanupConfig. */
export const CLEANUP_CONFIG = Symbol('CLEANUP_CONFIG');
