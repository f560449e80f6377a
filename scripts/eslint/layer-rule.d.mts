// Types of ./layer-rule.mjs for the specs in test/lint.
import type { KnownException } from './layers.mjs';

export interface LayerProblem {
  readonly messageId: 'upward' | 'importsApp' | 'testingEntry' | 'unknownLib' | 'unplacedLib';
  readonly data: {
    readonly source?: string;
    readonly from?: string;
    readonly to?: string;
    readonly [key: string]: unknown;
  };
}
export function isTestCode(file: string): boolean;
export function layerProblem(
  file: string,
  source: string,
  exceptions?: readonly KnownException[],
): LayerProblem | undefined;
export const layers: unknown;
