/**
 * Columns for custom resources: Name, then the CRD version's `additionalPrinterColumns` in order (or
 * Age alone when it declares none), as kube-apiserver serves them. A column whose JSONPath falls
 * outside the served subset keeps its header and an empty cell, and is reported as a warning.
 */
import { isObject, type JsonValue } from '@edict/foundation';
import type { PrinterColumn } from '../registry/resource-type';
import { column, NAME_COLUMN, type ColumnDefinition, type TablePrinter } from './columns';
import { ageOf } from './human-duration';
import { compileJsonPath, firstMatch, type CompiledJsonPath } from './json-path';

export interface CustomPrinter extends TablePrinter {
  /** One line per column whose path cannot be evaluated here. */
  readonly problems: readonly string[];
}

const DEFAULT_COLUMNS: readonly PrinterColumn[] = [
  { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: '', format: '', priority: 0 },
];

export function customPrinter(printerColumns: readonly PrinterColumn[]): CustomPrinter {
  const declared = printerColumns.length > 0 ? printerColumns : DEFAULT_COLUMNS;
  const paths: CompiledJsonPath[] = declared.map((c) => compileJsonPath(c.jsonPath));
  const columns: ColumnDefinition[] = [
    NAME_COLUMN,
    ...declared.map((c) =>
      column(
        c.name,
        c.type,
        c.description || `Custom resource definition column (in JSONPath format): ${c.jsonPath}`,
        c.priority,
        c.format,
      ),
    ),
  ];
  const problems = declared.flatMap((c, i) => {
    const path = paths[i]!;
    return 'error' in path ? [`printer column "${c.name}": jsonPath ${JSON.stringify(c.jsonPath)}: ${path.error}`] : [];
  });
  return {
    columns,
    problems,
    cells(object, now) {
      const metadata = isObject(object.metadata) ? object.metadata : {};
      const name = typeof metadata.name === 'string' ? metadata.name : '';
      return [name, ...declared.map((c, i) => cell(c.type, firstMatch(paths[i]!, object), now))];
    },
  };
}

/** A cell typed as its column: values of another JSON type print as empty (null), as kube does. */
function cell(type: string, value: JsonValue | undefined, now: number): JsonValue {
  if (value === undefined || value === null) return null;
  switch (type) {
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date':
      return typeof value === 'string' ? ageOf(value, now) : null;
    case 'string':
      return typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
    default:
      return null;
  }
}
