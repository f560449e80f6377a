import type { JsonValue } from '@edict/foundation';
import { compileJmesPath } from '../query';

/** Evaluates an expression the way the engine does (shared by the function specs). */
export const jp = (expression: string, data: JsonValue = {}): JsonValue => compileJmesPath(expression).search(data);
