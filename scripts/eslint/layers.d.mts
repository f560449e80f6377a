// Types of ./layers.mjs for the specs in test/lint.
export interface Layer {
  readonly layer: string;
  /** Each lib of the layer and the libs it uses directly. */
  readonly libs: Readonly<Record<string, readonly string[]>>;
}
export const LAYERS: readonly Layer[];
export const TEST_SUPPORT: readonly string[];
export const APPS: readonly string[];
export const APP_IMPORTERS: readonly string[];
