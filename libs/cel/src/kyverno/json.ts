import type { Environment } from '@marcbachmann/cel-js';
import { goJson, type JsonValue } from '@edict/foundation';
import { celError } from '../libraries/errors';
import type { KyvernoCelLimits } from './ports';
import { celToJson, fromDecodedJson } from './values';

export const JSON_TYPE = 'json.Json';

/** The value of the `json` variable (Kyverno declares it as a variable, not a namespace). */
export class CelJson {}

/**
 * Kyverno's json library: `json.unmarshal(text)` decodes as Go's encoding/json into `any`
 * (numbers are doubles), `json.marshal(value)` encodes as json.Marshal (sorted keys, HTML-safe).
 */
export function registerJson(env: Environment, limits: KyvernoCelLimits): void {
  env.registerType(JSON_TYPE, CelJson);
  env.registerConstant('json', JSON_TYPE, new CelJson());
  env.registerFunction(`${JSON_TYPE}.unmarshal(dyn): dyn`, (_json: CelJson, text: unknown) => {
    if (typeof text !== 'string') throw celError(`json.unmarshal: expected a string, got ${typeof text}`);
    if (text.length > limits.maxDocumentLength) {
      throw celError(`json.unmarshal: the document is longer than ${limits.maxDocumentLength} characters`);
    }
    let value: JsonValue;
    try {
      value = JSON.parse(text) as JsonValue;
    } catch (error) {
      throw celError(goJsonError(text, error));
    }
    return fromDecodedJson(value);
  });
  env.registerFunction(`${JSON_TYPE}.marshal(dyn): string`, (_json: CelJson, value: unknown) =>
    goJson(celToJson(value, 'json.marshal')),
  );
}

/** Go's wording for the two errors people meet. */
function goJsonError(text: string, error: unknown): string {
  if (text.trim() === '') return 'unexpected end of JSON input';
  return `invalid JSON: ${(error as Error).message}`;
}
