import { hasWildcard, wildcardMatch } from '../values/wildcard';

/** A Kubernetes label selector (metav1.LabelSelector), as plain data. */
export interface LabelSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

/**
 * metav1.LabelSelector evaluation. Selectors are compiled once per selector object (policies are
 * parsed once and their objects reused), so the hot path only looks labels up.
 */

type Requirement =
  | { op: 'Equals' | 'In' | 'NotIn'; key: string; values: readonly string[] }
  | { op: 'Exists' | 'DoesNotExist'; key: string };

/** A `matchLabels` entry with `*`/`?` in its key or value (a Kyverno extension). */
interface WildcardLabel {
  keyPattern: string;
  valuePattern: string;
  /** What Kubernetes would be asked to match when no label fits: wildcards replaced by `0`. */
  fallback: Requirement | undefined;
  fallbackError?: string;
}

interface CompiledSelector {
  /** Set when the selector is invalid; an invalid selector matches nothing. */
  error?: string;
  requirements: Requirement[];
  wildcards: WildcardLabel[];
}

const compiled = new WeakMap<LabelSelector, CompiledSelector>();

/** Plain Kubernetes semantics: AND of `matchLabels` and `matchExpressions`; `{}` matches everything. Invalid selectors match nothing. */
export function matchesLabelSelector(selector: LabelSelector, labels: Record<string, string> | undefined): boolean {
  const plain = compileSelector(selector, false);
  return plain.error === undefined && plain.requirements.every((r) => requirementHolds(r, labels ?? {}));
}

/** Why a selector is invalid (as Kubernetes would reject it), or undefined when it is valid. */
export function labelSelectorError(selector: LabelSelector): string | undefined {
  return compileSelector(selector, false).error;
}

/**
 * Kyverno's selector check for `selector` / `namespaceSelector`: a `matchLabels` entry whose key or
 * value holds wildcards is satisfied by any label matching both patterns; when none does, the
 * wildcards are replaced by `0` and the entry must then match literally.
 */
export function checkSelector(
  selector: LabelSelector,
  labels: Record<string, string> | undefined,
): { matched: boolean; error?: string } {
  const selectorForm = compileSelector(selector, true);
  if (selectorForm.error !== undefined) return { matched: false, error: selectorForm.error };
  const actual = labels ?? {};
  for (const entry of selectorForm.wildcards) {
    if (
      Object.keys(actual).some(
        (k) => wildcardMatch(entry.keyPattern, k) && wildcardMatch(entry.valuePattern, actual[k]),
      )
    ) {
      continue;
    }
    if (entry.fallbackError !== undefined) return { matched: false, error: entry.fallbackError };
    if (entry.fallback && !requirementHolds(entry.fallback, actual)) return { matched: false };
  }
  return { matched: selectorForm.requirements.every((r) => requirementHolds(r, actual)) };
}

function requirementHolds(requirement: Requirement, labels: Record<string, string>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, requirement.key);
  switch (requirement.op) {
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    case 'Equals':
    case 'In':
      return has && requirement.values.includes(labels[requirement.key]);
    case 'NotIn':
      return !has || !requirement.values.includes(labels[requirement.key]);
  }
}

const compiledWithWildcards = new WeakMap<LabelSelector, CompiledSelector>();

function compileSelector(selector: LabelSelector, wildcards: boolean): CompiledSelector {
  const cacheFor = wildcards ? compiledWithWildcards : compiled;
  let result = cacheFor.get(selector);
  if (!result) {
    result = compile(selector, wildcards);
    cacheFor.set(selector, result);
  }
  return result;
}

function compile(selector: LabelSelector, wildcards: boolean): CompiledSelector {
  const requirements: Requirement[] = [];
  const wildcardLabels: WildcardLabel[] = [];
  const invalid = (error: string): CompiledSelector => ({ error, requirements: [], wildcards: [] });
  if (typeof selector !== 'object' || selector === null || Array.isArray(selector)) {
    return invalid('label selector must be an object');
  }

  const matchLabels = selector.matchLabels ?? {};
  if (typeof matchLabels !== 'object' || matchLabels === null || Array.isArray(matchLabels)) {
    return invalid('matchLabels must be a map of strings');
  }
  for (const [key, rawValue] of Object.entries(matchLabels)) {
    const value = typeof rawValue === 'string' ? rawValue : String(rawValue);
    if (wildcards && (hasWildcard(key) || hasWildcard(value))) {
      const fallbackKey = zeroWildcards(key);
      const fallbackValue = zeroWildcards(value);
      const fallbackError = labelKeyError(fallbackKey) ?? labelValueError(fallbackValue, fallbackKey);
      wildcardLabels.push({
        keyPattern: key,
        valuePattern: value,
        fallback: fallbackError ? undefined : { op: 'Equals', key: fallbackKey, values: [fallbackValue] },
        fallbackError,
      });
      continue;
    }
    const error = labelKeyError(key) ?? labelValueError(value, key);
    if (error) return invalid(error);
    requirements.push({ op: 'Equals', key, values: [value] });
  }

  const expressions = selector.matchExpressions ?? [];
  if (!Array.isArray(expressions)) return invalid('matchExpressions must be a list');
  for (const [index, expression] of expressions.entries()) {
    const where = `matchExpressions[${index}]`;
    if (typeof expression !== 'object' || expression === null) return invalid(`${where} must be an object`);
    const { key, operator } = expression;
    const values = expression.values ?? [];
    if (typeof key !== 'string') return invalid(`${where}.key must be a string`);
    const keyError = labelKeyError(key);
    if (keyError) return invalid(`${where}: ${keyError}`);
    if (!Array.isArray(values)) return invalid(`${where}.values must be a list`);
    switch (operator) {
      case 'In':
      case 'NotIn': {
        if (values.length === 0) return invalid(`${where}: for 'In', 'NotIn' operators, values set can't be empty`);
        const strings = values.map((v) => (typeof v === 'string' ? v : String(v)));
        for (const v of strings) {
          const valueError = labelValueError(v, key);
          if (valueError) return invalid(`${where}: ${valueError}`);
        }
        requirements.push({ op: operator, key, values: strings });
        break;
      }
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) return invalid(`${where}: values set must be empty for exists and does not exist`);
        requirements.push({ op: operator, key });
        break;
      default:
        return invalid(`${where}: "${String(operator)}" is not a valid label selector operator`);
    }
  }
  return { requirements, wildcards: wildcardLabels };
}

function zeroWildcards(text: string): string {
  return text.replace(/[*?]/g, '0');
}

// Kubernetes label syntax: an optional DNS-subdomain prefix and a name of at most 63 characters.
const NAME = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function labelKeyError(key: string): string | undefined {
  const slash = key.indexOf('/');
  const prefix = slash === -1 ? undefined : key.slice(0, slash);
  const name = slash === -1 ? key : key.slice(slash + 1);
  if (prefix !== undefined && (prefix.length === 0 || prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix))) {
    return `invalid label key "${key}": prefix must be a DNS subdomain`;
  }
  if (name.length === 0 || name.length > 63 || !NAME.test(name)) {
    return `invalid label key "${key}": name part must be 1-63 alphanumeric characters, '-', '_' or '.', starting and ending with an alphanumeric character`;
  }
  return undefined;
}

function labelValueError(value: string, key: string): string | undefined {
  if (value === '') return undefined;
  if (value.length > 63 || !NAME.test(value)) {
    return `invalid label value "${value}" for key "${key}": must be at most 63 alphanumeric characters, '-', '_' or '.', starting and ending with an alphanumeric character`;
  }
  return undefined;
}
