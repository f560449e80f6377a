import { Optional, type Environment } from '@marcbachmann/cel-js';
import { compileGoRegexp } from '@edict/foundation';
import { decodeBase64 } from './encoders';
import { chargeString } from './runtime';
import { namespaceFunction } from './namespace';

/** A named string format (Kubernetes' CEL `kubernetes.NamedFormat`). */
export class CelNamedFormat {
  readonly celTypeName = FORMAT_TYPE;
  constructor(
    readonly name: string,
    readonly validate: (value: string) => string[],
  ) {}
}

const FORMAT_TYPE = 'kubernetes.NamedFormat';

/**
 * Kubernetes' CEL format library: `format.named(name)` (optional), `format.<name>()` and
 * `<format>.validate(value)`, optional.none() when valid, else the list of Kubernetes' messages.
 */
export function registerNamedFormats(env: Environment): void {
  env.registerType(FORMAT_TYPE, CelNamedFormat);
  namespaceFunction(env, `format.named(string): optional<${FORMAT_TYPE}>`, (name: string) => {
    const format = Object.hasOwn(FORMATS, name) ? FORMATS[name] : undefined;
    return format ? Optional.of(format) : Optional.none();
  });
  for (const [name, format] of Object.entries(FORMATS)) {
    namespaceFunction(env, `format.${name}(): ${FORMAT_TYPE}`, () => format);
  }
  env.registerFunction(
    `${FORMAT_TYPE}.validate(string): optional<list<string>>`,
    (format: CelNamedFormat, value: string) => {
      chargeString(value.length);
      const errors = format.validate(value);
      return errors.length ? Optional.of(errors) : Optional.none();
    },
  );
}

const DNS1123_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN = `${DNS1123_LABEL}(\\.${DNS1123_LABEL})*`;
const DNS1035_LABEL = '[a-z]([-a-z0-9]*[a-z0-9])?';
const QUALIFIED_NAME = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE = `(${QUALIFIED_NAME})?`;

/** apimachinery's RegexError: the message, examples and the pattern. */
function regexError(message: string, pattern: string, ...examples: string[]): string {
  const given = examples.map((example) => `'${example}', `).join('or ');
  return `${message} (e.g. ${given}regex used for validation is '${pattern}')`;
}

function maxLength(length: number): string {
  return `must be no more than ${length} characters`;
}

function matcher(pattern: string, max: number, message: string, ...examples: string[]): (value: string) => string[] {
  // RE2 (linear time): the value may be as long as any string a request carries.
  const regex = compileGoRegexp(`^(?:${pattern})$`);
  return (value) => {
    const errors: string[] = [];
    if (value.length > max) errors.push(maxLength(max));
    if (!regex.test(value)) errors.push(regexError(message, pattern, ...examples));
    return errors;
  };
}

const dns1123Label = matcher(
  DNS1123_LABEL,
  63,
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
  'my-name',
  '123-abc',
);
const dns1123Subdomain = matcher(
  DNS1123_SUBDOMAIN,
  253,
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
  'example.com',
);
const dns1035Label = matcher(
  DNS1035_LABEL,
  63,
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
  'my-name',
  'abc-123',
);
const labelValue = matcher(
  LABEL_VALUE,
  63,
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
  'MyValue',
  'my_value',
  '12345',
);

const QUALIFIED_NAME_MESSAGE =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const qualifiedNameRegex = compileGoRegexp(`^(?:${QUALIFIED_NAME})$`);

/** apimachinery's IsQualifiedName: an optional DNS subdomain prefix and '/', then a name. */
function qualifiedName(value: string): string[] {
  const errors: string[] = [];
  const parts = value.split('/');
  if (parts.length > 2) {
    return [
      `a qualified name ${regexError(QUALIFIED_NAME_MESSAGE, QUALIFIED_NAME, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  const name = parts.at(-1)!;
  if (parts.length === 2) {
    const prefix = parts[0]!;
    if (prefix === '') errors.push('prefix part must be non-empty');
    else errors.push(...dns1123Subdomain(prefix).map((message) => `prefix part ${message}`));
  }
  if (name === '') errors.push('name part must be non-empty');
  else if (name.length > 63) errors.push(`name part ${maxLength(63)}`);
  if (!qualifiedNameRegex.test(name)) {
    errors.push(`name part ${regexError(QUALIFIED_NAME_MESSAGE, QUALIFIED_NAME, 'MyName', 'my.name', '123-abc')}`);
  }
  return errors;
}

/** A generated-name prefix is checked as if its trailing '-' were a letter (apimachinery's maskTrailingDash). */
function asPrefix(validate: (value: string) => string[]): (value: string) => string[] {
  return (value) => validate(value.length > 1 && value.endsWith('-') ? `${value.slice(0, -1)}a` : value);
}

/** Go's url.ParseRequestURI: an absolute URI or an absolute path. */
function uri(value: string): string[] {
  const absolute = /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(value);
  if (!absolute && !value.startsWith('/')) return [`parse ${JSON.stringify(value)}: invalid URI for request`];
  if ([...value].some((char) => char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f))
    return [`parse ${JSON.stringify(value)}: net/url: invalid control character in URL`];
  return [];
}

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

function validDate(year: number, month: number, day: number): boolean {
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

function isDate(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  return match !== null && validDate(Number(match[1]), Number(match[2]), Number(match[3]));
}

/** strfmt's date-time: RFC 3339 with a 'T', 't' or ' ' separator, optional fraction, a zone or 'Z'. */
function isDateTime(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$/.exec(value);
  if (!match || !validDate(Number(match[1]), Number(match[2]), Number(match[3]))) return false;
  const [hours, minutes, seconds] = [Number(match[4]), Number(match[5]), Number(match[6])];
  const zoneOk = match[9] === undefined || (Number(match[9]) < 24 && Number(match[10]) < 60);
  return hours < 24 && minutes < 60 && seconds < 60 && zoneOk;
}

function isBase64(value: string): boolean {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(value) || value.length % 4 !== 0) return false;
  try {
    decodeBase64(value);
    return true;
  } catch {
    return false;
  }
}

const check =
  (valid: (value: string) => boolean, message: string) =>
  (value: string): string[] =>
    valid(value) ? [] : [message];

const FORMATS: Readonly<Record<string, CelNamedFormat>> = Object.freeze(
  Object.fromEntries(
    Object.entries({
      dns1123Label,
      dns1123Subdomain,
      dns1035Label,
      qualifiedName,
      dns1123LabelPrefix: asPrefix(dns1123Label),
      dns1123SubdomainPrefix: asPrefix(dns1123Subdomain),
      dns1035LabelPrefix: asPrefix(dns1035Label),
      labelValue,
      uri,
      uuid: check((value) => UUID.test(value), 'does not match the UUID format'),
      byte: check(isBase64, 'invalid base64'),
      date: check(isDate, 'invalid date'),
      datetime: check(isDateTime, 'invalid datetime'),
    }).map(([name, validate]) => [name, new CelNamedFormat(name, validate)]),
  ),
);
