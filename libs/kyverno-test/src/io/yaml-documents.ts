import { type JsonValue, formatDiagnostic, isError, parseDocuments, type Diagnostic } from '@edict/foundation';
import { LoadError } from './load-error';

/** One object read from a YAML file, with a description of where it sits for error messages. */
export interface YamlDocument {
  value: JsonValue;
  /** `document 2` or `document 2, item 3` (for `kind: List` items). */
  where: string;
}

/**
 * Multi-document YAML as Kubernetes reads it (the engine's YAML 1.1 reader: `kind: List` expanded,
 * empty documents dropped). The first syntax error becomes a LoadError naming file and line.
 */
export function parseYamlDocuments(text: string, file: string): YamlDocument[] {
  const parsed = parseDocuments(text, file);
  throwFirstError(file, parsed.errors);
  return parsed.documents.map((doc) => ({
    value: doc.value,
    where: doc.item === undefined ? `document ${doc.index + 1}` : `document ${doc.index + 1}, item ${doc.item + 1}`,
  }));
}

export function throwFirstError(file: string, diagnostics: readonly Diagnostic[]): void {
  const errors = diagnostics.filter(isError);
  if (errors.length === 0) return;
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
  throw new LoadError(file, undefined, '', formatDiagnostic(errors[0]) + more);
}
