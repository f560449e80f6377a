/** Injection tokens of the reports module. */
export const REPORTS_OPTIONS = Symbol('REPORTS_OPTIONS');
export const REPORT_STORE = Symbol('REPORT_STORE');
export const REPORT_COUNTER = Symbol('REPORT_COUNTER');
