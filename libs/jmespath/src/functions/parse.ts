import { type JsonValue, yamlToJson, YamlJsonError } from '@edict/foundation';
import { JmesPathError } from '../errors';
import type { FunctionDefinition } from '../runtime';
import { str } from './signatures';

/** Go's json.Unmarshal message for the commonest failure; otherwise the parser's own text. */
function parseJson(args: JsonValue[]): JsonValue {
  const text = args[0] as string;
  if (text.trim() === '') throw new JmesPathError('unexpected end of JSON input');
  try {
    return JSON.parse(text) as JsonValue;
  } catch (error) {
    throw new JmesPathError(`invalid JSON: ${(error as Error).message}`);
  }
}

function parseYaml(args: JsonValue[]): JsonValue {
  try {
    return yamlToJson(args[0] as string);
  } catch (error) {
    if (error instanceof YamlJsonError) throw new JmesPathError(error.message);
    throw error;
  }
}

export const parseFunctions: FunctionDefinition[] = [
  {
    name: 'parse_json',
    returns: ['any'],
    note: 'decodes a valid JSON encoded string to the appropriate type. Opposite of `to_string` function',
    signature: [str],
    fn: parseJson,
  },
  {
    name: 'parse_yaml',
    returns: ['any'],
    note: 'decodes a valid YAML encoded string to the appropriate type provided it can be represented as JSON',
    signature: [str],
    fn: parseYaml,
  },
];
