import type { FunctionDefinition } from '../runtime';
import { registerFunctions } from '../runtime';
import { arithmeticFunctions } from './arithmetic';
import { builtinOverrides } from './builtins';
import { collectionFunctions } from './collections';
import { encodingFunctions } from './encoding';
import { miscFunctions } from './misc';
import { parseFunctions } from './parse';
import { regexFunctions } from './regex';
import { stringFunctions } from './strings';
import { timeFunctions } from './time';

/** Kyverno's custom functions (the standard ones stay as the runtime provides them). */
export const kyvernoFunctions: readonly FunctionDefinition[] = [
  ...stringFunctions,
  ...regexFunctions,
  ...arithmeticFunctions,
  ...encodingFunctions,
  ...timeFunctions,
  ...parseFunctions,
  ...collectionFunctions,
  ...miscFunctions,
];

// Registered once, when this module is first loaded; registerFunctions ignores repeats.
registerFunctions([...builtinOverrides, ...kyvernoFunctions]);

export function kyvernoFunctionNames(): string[] {
  return kyvernoFunctions.map((f) => f.name).sort();
}
