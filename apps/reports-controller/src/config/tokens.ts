/** Injection token of the validated ReportsConfig. */
export const REPORTS_CONFIG = Symbol('REPORTS_CONFIG');
