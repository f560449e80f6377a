/** Table column definitions (`meta.k8s.io/v1` TableColumnDefinition) and the two every table shares. */
import type { JsonObject, JsonValue } from '@edict/foundation';

export interface ColumnDefinition {
  readonly name: string;
  /** `string`, `integer`, `number`, `boolean` or `date`. */
  readonly type: string;
  readonly format: string;
  readonly description: string;
  /** 0 is always shown; higher only with `kubectl get -o wide`. */
  readonly priority: number;
}

/** A kind's columns and how one object fills them. */
export interface TablePrinter {
  readonly columns: readonly ColumnDefinition[];
  cells(object: JsonObject, now: number): JsonValue[];
}

export function column(name: string, type: string, description: string, priority = 0, format = ''): ColumnDefinition {
  return { name, type, format, description, priority };
}

export const NAME_COLUMN = column('Name', 'string', 'The object name, unique within its namespace.', 0, 'name');
export const AGE_COLUMN = column('Age', 'string', 'Time since the object was created (metadata.creationTimestamp).');
