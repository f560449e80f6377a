/**
 * The 409 an apply answers when it would change fields other managers own, worded as
 * kube-apiserver words it: one conflict on one line, several grouped by manager (sorted), and a
 * `FieldManagerConflict` cause per field. Update managers are named with the version they wrote.
 */
import { ApiError } from '../status';
import { pathString, type FieldPath } from './field-set';

export interface Conflict {
  readonly manager: string;
  readonly operation: 'Apply' | 'Update';
  readonly apiVersion: string;
  readonly subresource?: string;
  readonly path: FieldPath;
}

/** `"kubectl-create" using apps/v1`, `"kubectl"`, `"x" with subresource "status"`. */
export function managerText(conflict: Omit<Conflict, 'path'>): string {
  let text = JSON.stringify(conflict.manager);
  if (conflict.subresource) text += ` with subresource ${JSON.stringify(conflict.subresource)}`;
  return conflict.operation === 'Update' ? `${text} using ${conflict.apiVersion}` : text;
}

export function applyConflict(conflicts: readonly Conflict[]): ApiError {
  const causes = conflicts.map((conflict) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${managerText(conflict)}`,
    field: pathString(conflict.path),
  }));
  let message: string;
  if (conflicts.length === 1) {
    message = `Apply failed with 1 conflict: ${causes[0]!.message}: ${causes[0]!.field}`;
  } else {
    const byManager = new Map<string, string[]>();
    for (const cause of causes) byManager.set(cause.message, [...(byManager.get(cause.message) ?? []), cause.field]);
    const lines = [...byManager.keys()]
      .sort()
      .flatMap((manager) => [
        `${manager.replace(/^conflict with/, 'conflicts with')}:`,
        ...byManager.get(manager)!.map((field) => `- ${field}`),
      ]);
    message = `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
  }
  return new ApiError(409, 'Conflict', message, { causes });
}
