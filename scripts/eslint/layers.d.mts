// Types of ./layers.mjs for the specs in test/lint.
export interface Layer {
  readonly layer: string;
  /** Each lib of the layer and the libs it uses directly. */
  readonly libs: Readonly<Record<string, readonly string[]>>;
}
export interface KnownException {
  readonly from: string;
  readonly to: string;
  readonly in: 'all' | 'tests';
  readonly removedBy: string;
}
export const LAYERS: readonly Layer[];
export const TEST_SUPPORT: readonly string[];
export const APPS: readonly string[];
export const APP_IMPORTERS: readonly string[];
export const RENAMED: Readonly<Record<string, string>>;
export const KNOWN_EXCEPTIONS: readonly KnownException[];
