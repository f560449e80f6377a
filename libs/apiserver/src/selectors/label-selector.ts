/**
 * The label-selector query syntax (`a=b,c!=d,e in (x,y),f notin (z),g,!h`), parsed once into
 * requirements. Parse errors are ApiErrors with kube's 400 text so handlers can throw them as is.
 */
import { badRequest } from '../status';

export type LabelOperator = 'in' | 'notin' | 'exists' | '!';

export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  readonly values: readonly string[];
}

export type Labels = Readonly<Record<string, unknown>> | undefined;

function splitTopLevel(source: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of source) {
    if (char === '(') depth++;
    if (char === ')') depth--;
    if (char === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else current += char;
  }
  parts.push(current);
  return parts;
}

const KEY = /^([a-z0-9A-Z]([-a-z0-9A-Z_./]*[a-z0-9A-Z])?)$/;
const VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

function fail(selector: string, why: string): never {
  throw badRequest(`unable to parse requirement: ${why} in label selector ${JSON.stringify(selector)}`);
}

function checkKey(selector: string, key: string): string {
  if (!KEY.test(key)) fail(selector, `invalid label key ${JSON.stringify(key)}`);
  return key;
}

function checkValue(selector: string, value: string): string {
  if (!VALUE.test(value)) fail(selector, `invalid label value: ${JSON.stringify(value)}`);
  return value;
}

function parseOne(selector: string, raw: string): LabelRequirement {
  const part = raw.trim();
  if (part === '') fail(selector, 'found empty requirement');
  const setMatch = /^(\S+)\s+(in|notin)\s*\((.*)\)$/.exec(part);
  if (setMatch) {
    const values = setMatch[3]!.split(',').map((v) => checkValue(selector, v.trim()));
    return { key: checkKey(selector, setMatch[1]!), operator: setMatch[2] as 'in' | 'notin', values };
  }
  const eq = /^([^!=\s]+)\s*(==|=|!=)\s*(.*)$/.exec(part);
  if (eq) {
    const value = checkValue(selector, eq[3]!.trim());
    return { key: checkKey(selector, eq[1]!), operator: eq[2] === '!=' ? 'notin' : 'in', values: [value] };
  }
  if (part.startsWith('!')) return { key: checkKey(selector, part.slice(1).trim()), operator: '!', values: [] };
  return { key: checkKey(selector, part), operator: 'exists', values: [] };
}

export function parseLabelSelector(selector: string): LabelRequirement[] {
  if (selector.trim() === '') return [];
  return splitTopLevel(selector).map((part) => parseOne(selector, part));
}

export function matchesLabels(requirements: readonly LabelRequirement[], labels: Labels): boolean {
  return requirements.every(({ key, operator, values }) => {
    const present = labels !== undefined && Object.hasOwn(labels, key);
    const value = present ? String(labels[key]) : undefined;
    switch (operator) {
      case 'exists':
        return present;
      case '!':
        return !present;
      case 'in':
        return present && values.includes(value!);
      case 'notin':
        return !present || !values.includes(value!);
    }
  });
}
