import { isBudgetError, wildcardMatch, goRegexpMatch, goRegexpReplaceAll, type JsonValue } from '@edict/foundation';
import { argumentTypeError, functionError } from '../errors';
import { activeBudget, type FunctionDefinition } from '../runtime';
import { scalarToString } from './scalar-text';
import { str, strOrNum } from './signatures';

function textArgument(fn: string, args: JsonValue[], index: number): string {
  const text = scalarToString(args[index] as JsonValue);
  if (text === undefined) throw argumentTypeError(fn, index + 1, 'String or Real');
  return text;
}

function replaceAll(fn: string, literal: boolean) {
  return (args: JsonValue[]): JsonValue => {
    const source = textArgument(fn, args, 1);
    const replacement = textArgument(fn, args, 2);
    const budget = activeBudget();
    try {
      return goRegexpReplaceAll(args[0] as string, source, replacement, literal, (length) =>
        budget.checkLength(length, fn),
      );
    } catch (error) {
      if (isBudgetError(error)) throw error;
      throw functionError(fn, (error as Error).message);
    }
  };
}

export const regexFunctions: FunctionDefinition[] = [
  // Argument order is (regex, source, replacement), as in Kyverno.
  {
    name: 'regex_replace_all',
    returns: ['string'],
    note: 'converts all parameters to string',
    signature: [str, strOrNum, strOrNum],
    fn: replaceAll('regex_replace_all', false),
  },
  {
    name: 'regex_replace_all_literal',
    returns: ['string'],
    note: 'converts all parameters to string',
    signature: [str, strOrNum, strOrNum],
    fn: replaceAll('regex_replace_all_literal', true),
  },
  {
    name: 'regex_match',
    returns: ['bool'],
    note: 'first string is the regular exression which is compared with second input which can be a number or string',
    signature: [str, strOrNum],
    // Kyverno returns Go's compile error unwrapped here ("error parsing regexp: ...").
    fn: (a) => goRegexpMatch(a[0] as string, textArgument('regex_match', a, 1)),
  },
  {
    name: 'pattern_match',
    returns: ['bool'],
    note: "'*' matches zero or more alphanumeric characters, '?' matches a single alphanumeric character",
    signature: [str, strOrNum],
    // Kyverno reports this function's argument errors under the name regex_match.
    fn: (a) => wildcardMatch(a[0] as string, textArgument('regex_match', a, 1)),
  },
];
