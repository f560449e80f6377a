/** What a write request says about unknown and repeated fields: its `fieldValidation`, and the keys its body repeats. */
import type { AdmissionRequestContext } from '../admission/types';
import { fieldValidationOf, type FieldValidation } from '../resources/field-validation';
import { duplicateFields } from './duplicate-fields';

/** Bodies whose repeated keys strict decoding reports (a JSON patch's are its operations': not checked). */
const JSON_BODIES: readonly string[] = [
  'application/json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
];

/** Adds the keys a JSON body (already parsed: valid) repeats to `into`, unless they would be ignored. */
export function noteDuplicates(raw: Buffer, contentType: string, query: URLSearchParams, into: string[]): void {
  if (JSON_BODIES.includes(contentType) && query.get('fieldValidation') !== 'Ignore') {
    into.push(...duplicateFields(raw.toString('utf8')));
  }
}

/** The write options for the request's `fieldValidation`: the directive, where warnings go, the repeated keys. */
export function fieldValidation(
  query: URLSearchParams,
  optionsKind: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions',
  context: AdmissionRequestContext,
  duplicates: readonly string[],
): { fieldValidation: FieldValidation; warnings: string[]; duplicateFields: readonly string[] } {
  return {
    fieldValidation: fieldValidationOf(query, optionsKind),
    warnings: context.warnings,
    duplicateFields: duplicates,
  };
}
