/**
 * The parity table: each of Kyverno's names (kyverno-names.ts) with Edict's setting or the reason it
 * does not apply, generated from what Edict declares:
 *  - a flag is implemented by the variable its controller's KyvernoFlagTable names (beside the
 *    controller's environment table), else it has a reason here;
 *  - a chart value is honoured when Edict's chart schema accepts it under Kyverno's name, else it has a
 *    reason here, which the chart also enforces (files/refused.json: the install fails with it);
 *  - a ConfigMap key is applied when Edict's ConfigMap parser reads it, else it has a reason here.
 * PENDING lists, in one place, the names other work in progress will map. parity.spec.ts fails when a
 * name has neither a mapping nor a reason (nor is pending), or more than one.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAdmissionConfig } from '@edict/admission';
import { MetricsConfiguration } from '@edict/controller-runtime';
import { ADMISSION_ENVIRONMENT, ADMISSION_KYVERNO_FLAGS } from '@edict/admission-controller';
import { BACKGROUND_ENVIRONMENT, BACKGROUND_KYVERNO_FLAGS } from '@edict/background-controller';
import { CLEANUP_ENVIRONMENT, CLEANUP_KYVERNO_FLAGS } from '@edict/cleanup-controller';
import { REPORTS_ENVIRONMENT, REPORTS_KYVERNO_FLAGS } from '@edict/reports-controller';
import { CHART_DIRECTORY, SCHEMA_FILE } from '../chart-settings';
import {
  CONTROLLER_KEYS,
  KYVERNO_CHART_VALUES,
  KYVERNO_CONFIGMAP_KEYS,
  KYVERNO_FLAGS,
  KYVERNO_METRICS_CONFIGMAP_KEYS,
  type ControllerKey,
} from './kyverno-names';
import { NOT_APPLICABLE_CONFIGMAP_KEYS, NOT_APPLICABLE_FLAGS, NOT_APPLICABLE_VALUES, PENDING } from './reasons';

export const PARITY_DOC = join('docs', 'parity', 'settings.md');
export const REFUSED_FILE = join(CHART_DIRECTORY, 'files', 'refused.json');
export const FLAGS_FILE = join(CHART_DIRECTORY, 'files', 'flags.json');
/** How the schema marks a Kyverno value it accepts only to refuse it (generated, see refusedSchema). */
export const REFUSED_PREFIX = 'Refused by Edict: ';

interface Controller {
  readonly environment: Readonly<Record<string, unknown>>;
  readonly flags: Readonly<Record<string, string>>;
}

export const CONTROLLERS: Readonly<Record<ControllerKey, Controller>> = {
  admissionController: { environment: ADMISSION_ENVIRONMENT, flags: ADMISSION_KYVERNO_FLAGS },
  backgroundController: { environment: BACKGROUND_ENVIRONMENT, flags: BACKGROUND_KYVERNO_FLAGS },
  reportsController: { environment: REPORTS_ENVIRONMENT, flags: REPORTS_KYVERNO_FLAGS },
  cleanupController: { environment: CLEANUP_ENVIRONMENT, flags: CLEANUP_KYVERNO_FLAGS },
};

export type Kind = 'flag' | 'chart value' | 'ConfigMap key' | 'metrics ConfigMap key';

export interface Row {
  readonly kind: Kind;
  /** The Kyverno name (a flag as `--name`, prefixed with its controller's values key). */
  readonly name: string;
  /** Edict's setting, when Edict implements it. */
  readonly edict?: string;
  readonly reason?: string;
  readonly pending: boolean;
}

/** A reason entry for chart values: `*Controller.` stands for each of the four controllers. */
export interface ValueReason {
  readonly reason: string;
  /** The value Edict's behaviour matches: accepted, anything else refused. */
  readonly allowed?: unknown;
}

export function expandControllers<T>(record: Readonly<Record<string, T>>): Map<string, T> {
  const expanded = new Map<string, T>();
  for (const [pattern, value] of Object.entries(record)) {
    if (pattern.startsWith('*Controller.')) {
      for (const controller of CONTROLLER_KEYS)
        expanded.set(`${controller}${pattern.slice('*Controller'.length)}`, value);
    } else expanded.set(pattern, value);
  }
  return expanded;
}

/** The entry of `patterns` naming `path` or one of its parents. */
function matching<T>(patterns: Map<string, T>, path: string): T | undefined {
  const parts = path.split('.');
  for (let length = parts.length; length > 0; length--) {
    const found = patterns.get(parts.slice(0, length).join('.'));
    if (found !== undefined) return found;
  }
  return undefined;
}

type Schema = { [key: string]: unknown };

function resolve(root: Schema, node: Schema): Schema {
  let current = node;
  while (typeof current['$ref'] === 'string') {
    const name = (current['$ref'] as string).replace('#/$defs/', '');
    current = (root['$defs'] as Record<string, Schema>)[name]!;
  }
  if (Array.isArray(current['allOf'])) {
    const parts = (current['allOf'] as Schema[]).map((part) => resolve(root, part));
    const properties = Object.assign({}, ...parts.map((part) => part['properties'] ?? {}));
    const closed = parts.some((part) => part['additionalProperties'] === false);
    return { type: 'object', properties, ...(closed ? { additionalProperties: false } : {}) };
  }
  return current;
}

/** Whether Edict's chart schema accepts `path` as a value it honours (not one it refuses). */
export function schemaHonours(schema: Schema, path: string): boolean {
  let node = resolve(schema, schema);
  for (const part of path.split('.')) {
    const properties = node['properties'] as Record<string, Schema> | undefined;
    const child = properties?.[part];
    if (child) {
      node = resolve(schema, child);
      if (typeof node['description'] === 'string' && node['description'].startsWith(REFUSED_PREFIX)) return false;
      continue;
    }
    // Inside an open object (a map, a Kubernetes object passed through): accepted as a whole.
    return node['additionalProperties'] !== false && node['type'] !== undefined && !('anyOf' in node);
  }
  return true;
}

/** Whether Edict's ConfigMap parser reads `key` (it reports a problem for a value of the wrong type). */
export function configMapReads(key: string): boolean {
  const { problems } = parseAdmissionConfig({ [key]: 42 }, { controllerNamespace: 'edict' });
  return problems.some((problem) => problem.key === key);
}

/** Whether Edict's kyverno-metrics parser reads `key` (it logs a problem for a value that is no JSON, list or duration). */
export function metricsConfigMapReads(key: string): boolean {
  const problems: string[] = [];
  new MetricsConfiguration({ [key]: '{' }, (problem) => problems.push(problem));
  return problems.some((problem) => problem.startsWith(`kyverno-metrics: ${key} `));
}

function has(list: readonly string[], name: string): boolean {
  return list.some((entry) => name === entry || name.startsWith(`${entry}.`));
}

export function parityRows(schema: Schema = JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as Schema): Row[] {
  const rows: Row[] = [];
  for (const controller of CONTROLLER_KEYS) {
    for (const flag of Object.keys(KYVERNO_FLAGS[controller])) {
      const variable = CONTROLLERS[controller].flags[flag];
      rows.push({
        kind: 'flag',
        name: `${controller} --${flag}`,
        ...(variable ? { edict: `\`${variable}\`` } : {}),
        ...reasonOf(NOT_APPLICABLE_FLAGS[`${controller}.${flag}`] ?? NOT_APPLICABLE_FLAGS[flag]),
        pending: PENDING.flags.includes(flag),
      });
    }
  }
  const valueReasons = expandControllers(NOT_APPLICABLE_VALUES);
  for (const value of KYVERNO_CHART_VALUES) {
    rows.push({
      kind: 'chart value',
      name: value,
      ...(schemaHonours(schema, value) ? { edict: `\`${value}\`` } : {}),
      ...reasonOf(matching(valueReasons, value)?.reason),
      pending: has([...expandControllers(Object.fromEntries(PENDING.values.map((v) => [v, v]))).keys()], value),
    });
  }
  for (const key of KYVERNO_CONFIGMAP_KEYS) {
    rows.push({
      kind: 'ConfigMap key',
      name: key,
      ...(configMapReads(key) ? { edict: `\`${key}\`` } : {}),
      ...reasonOf(NOT_APPLICABLE_CONFIGMAP_KEYS[key]),
      pending: PENDING.configMapKeys.includes(key),
    });
  }
  for (const key of KYVERNO_METRICS_CONFIGMAP_KEYS) {
    rows.push({
      kind: 'metrics ConfigMap key',
      name: key,
      ...(metricsConfigMapReads(key) ? { edict: `\`${key}\`` } : {}),
      pending: PENDING.metricsConfigMapKeys.includes(key),
    });
  }
  return rows;
}

function reasonOf(reason: string | undefined): { reason?: string } {
  return reason === undefined ? {} : { reason };
}

/** What is wrong with a row: nothing, or why the table cannot stand. */
export function rowProblem(row: Row): string | undefined {
  const answers = [row.edict !== undefined, row.reason !== undefined, row.pending].filter(Boolean).length;
  if (answers === 0) return `${row.kind} ${row.name}: neither an Edict setting nor a reason (nor pending)`;
  if (answers > 1) {
    const what = [row.edict && `setting ${row.edict}`, row.reason && 'a reason', row.pending && 'pending'];
    return `${row.kind} ${row.name}: more than one answer (${what.filter(Boolean).join(', ')})`;
  }
  return undefined;
}

/** files/refused.json: each refused chart value (controllers expanded) with its reason. */
export function refusedValues(): Record<string, ValueReason> {
  const refused: Record<string, ValueReason> = {};
  for (const [path, entry] of [...expandControllers(NOT_APPLICABLE_VALUES)].sort(([a], [b]) => a.localeCompare(b))) {
    refused[path] = entry;
  }
  return refused;
}

/** files/flags.json: per controller, each Kyverno flag's variable and type, or the reason it is refused. */
export function flagTable(): Record<string, Record<string, { env: string; type: string } | { refused: string }>> {
  const table: Record<string, Record<string, { env: string; type: string } | { refused: string }>> = {};
  for (const controller of CONTROLLER_KEYS) {
    const flags: Record<string, { env: string; type: string } | { refused: string }> = {};
    for (const [flag, type] of Object.entries(KYVERNO_FLAGS[controller]).sort(([a], [b]) => a.localeCompare(b))) {
      const variable = CONTROLLERS[controller].flags[flag];
      const reason = NOT_APPLICABLE_FLAGS[`${controller}.${flag}`] ?? NOT_APPLICABLE_FLAGS[flag];
      if (variable) flags[flag] = { env: variable, type };
      else if (reason) flags[flag] = { refused: reason };
      else flags[flag] = { refused: 'not mapped yet (work in progress)' };
    }
    table[controller] = flags;
  }
  return table;
}

/** values.schema.json with every refused value declared (so the template can refuse it with its reason). */
export function refusedSchema(current: string = readFileSync(SCHEMA_FILE, 'utf8')): string {
  const schema = JSON.parse(current) as Schema;
  removeRefused(schema);
  for (const [path, { reason }] of Object.entries(refusedValues())) {
    const parts = path.split('.');
    const [controller] = parts;
    if ((CONTROLLER_KEYS as readonly string[]).includes(controller!)) {
      declare(schema, resolveForWrite(schema, '#/$defs/controller'), parts.slice(1), reason, true);
    } else declare(schema, schema, parts, reason, false);
  }
  return `${JSON.stringify(schema, null, 2)}\n`;
}

function resolveForWrite(schema: Schema, ref: string): Schema {
  return (schema['$defs'] as Record<string, Schema>)[ref.replace('#/$defs/', '')]!;
}

function declare(root: Schema, start: Schema, parts: readonly string[], reason: string, shared: boolean): void {
  let target = start;
  for (const part of parts) {
    while (typeof target['$ref'] === 'string') target = resolveForWrite(root, target['$ref'] as string);
    if (Array.isArray(target['allOf'])) target = (target['allOf'] as Schema[])[0]!;
    while (typeof target['$ref'] === 'string') target = resolveForWrite(root, target['$ref'] as string);
    const properties = (target['properties'] ??= {}) as Record<string, Schema>;
    const child = properties[part];
    if (!child) {
      properties[part] = { description: `${REFUSED_PREFIX}${shared ? 'in every controller, ' : ''}${reason}` };
      return;
    }
    // Declared already (honoured: the spec reports it), or inside an open object that accepts it.
    if (target['additionalProperties'] !== false) return;
    target = child;
  }
}

function removeRefused(node: unknown): void {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const item of node) removeRefused(item);
    return;
  }
  const object = node as Schema;
  const properties = object['properties'] as Record<string, Schema> | undefined;
  if (properties) {
    for (const [key, child] of Object.entries(properties)) {
      if (typeof child['description'] === 'string' && child['description'].startsWith(REFUSED_PREFIX)) {
        delete properties[key];
      }
    }
  }
  for (const value of Object.values(object)) removeRefused(value);
}

/** docs/parity/settings.md. */
export function parityDocument(rows: readonly Row[] = parityRows()): string {
  const out = [
    '# Kyverno settings and Edict',
    '',
    "Every flag of Kyverno's controllers, value of its Helm chart and key of its ConfigMaps (from",
    "Kyverno's source), with the Edict setting that implements it or why it does not apply. Generated",
    "by `npm run docs:parity` from `test/chart/parity` (Kyverno's names), the controllers' flag tables",
    "beside their environment tables, the chart's schema and the ConfigMap parser; a spec fails when a",
    'name has no answer. The chart refuses a value listed here as not applicable, with the reason, and',
    'turns each implemented flag given in `extraArgs` into its variable. A chart value Edict honours',
    'keeps Kyverno\'s name. "Pending": being mapped by work in progress.',
    '',
  ];
  const kinds: Kind[] = ['flag', 'chart value', 'ConfigMap key', 'metrics ConfigMap key'];
  for (const kind of kinds) {
    const ofKind = rows.filter((row) => row.kind === kind);
    const done = ofKind.filter((row) => row.edict !== undefined).length;
    out.push(`## ${kind[0]!.toUpperCase()}${kind.slice(1)}s`, '');
    out.push(`${done} of ${ofKind.length} implemented.`, '');
    out.push('| Kyverno | Edict |', '| --- | --- |');
    for (const row of ofKind) {
      const answer =
        row.edict ?? (row.reason ? `not applicable, because ${row.reason}` : row.pending ? 'pending' : '—');
      out.push(`| \`${row.name}\` | ${answer.replace(/\|/g, '\\|')} |`);
    }
    out.push('');
  }
  return out.join('\n');
}

export const refusedFile = (): string => `${JSON.stringify(refusedValues(), null, 2)}\n`;
export const flagsFile = (): string => `${JSON.stringify(flagTable(), null, 2)}\n`;
