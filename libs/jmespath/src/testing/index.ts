import type { JsonValue } from '../json';
import { compileJmesPath } from '../jmespath/query';

/** Evaluates an expression the way the engine does (shared by the function specs). */
export const jp = (expression: string, data: JsonValue = {}): JsonValue => compileJmesPath(expression).search(data);
