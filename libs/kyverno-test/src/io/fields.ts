import { isObject, type JsonObject, type JsonValue } from '@edict/foundation';
import { LoadError } from './load-error';

/*
 * Reads fields of a decoded document the way Go's JSON decoder does for Kyverno's CLI files: an exact key
 * wins, otherwise keys match case-insensitively. Every error names the file and the field path.
 */
export class Fields {
  private constructor(
    private readonly source: JsonObject,
    readonly file: string,
    readonly path: string,
  ) {}

  static of(value: JsonValue | undefined, file: string, path = ''): Fields {
    if (!isObject(value)) throw new LoadError(file, path || undefined, `expected a mapping, got ${describe(value)}`);
    return new Fields(value, file, path);
  }

  fieldPath(name: string): string {
    return this.path ? `${this.path}.${name}` : name;
  }

  error(name: string | undefined, detail: string): LoadError {
    return new LoadError(this.file, name === undefined ? this.path || undefined : this.fieldPath(name), detail);
  }

  /** The key actually present for `name`, if any. */
  private key(name: string): string | undefined {
    if (name in this.source) return name;
    const lower = name.toLowerCase();
    return Object.keys(this.source).find((key) => key.toLowerCase() === lower);
  }

  raw(name: string): JsonValue | undefined {
    const key = this.key(name);
    return key === undefined ? undefined : this.source[key];
  }

  has(name: string): boolean {
    const value = this.raw(name);
    return value !== undefined && value !== null;
  }

  string(name: string): string | undefined {
    const value = this.raw(name);
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') throw this.error(name, `expected a string, got ${describe(value)}`);
    return value;
  }

  requiredString(name: string): string {
    const value = this.string(name);
    if (value === undefined || value === '') throw this.error(name, 'is required');
    return value;
  }

  stringList(name: string): string[] {
    const value = this.raw(name);
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) throw this.error(name, `expected a list of strings, got ${describe(value)}`);
    return value.map((item, index) => {
      if (typeof item !== 'string') throw this.error(`${name}[${index}]`, `expected a string, got ${describe(item)}`);
      return item;
    });
  }

  /** A list of mappings, each wrapped for further reading. */
  objectList(name: string): Fields[] {
    const value = this.raw(name);
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) throw this.error(name, `expected a list, got ${describe(value)}`);
    return value.map((item, index) => Fields.of(item, this.file, this.fieldPath(`${name}[${index}]`)));
  }

  object(name: string): Fields | undefined {
    const value = this.raw(name);
    if (value === undefined || value === null) return undefined;
    return Fields.of(value, this.file, this.fieldPath(name));
  }

  /** A free-form mapping (values, labels). */
  map(name: string): JsonObject | undefined {
    const value = this.raw(name);
    if (value === undefined || value === null) return undefined;
    if (!isObject(value)) throw this.error(name, `expected a mapping, got ${describe(value)}`);
    return value;
  }

  stringMap(name: string): Record<string, string> {
    const value = this.map(name) ?? {};
    const out: Record<string, string> = {};
    for (const [key, item] of Object.entries(value)) {
      if (typeof item !== 'string') throw this.error(`${name}.${key}`, `expected a string, got ${describe(item)}`);
      out[key] = item;
    }
    return out;
  }

  /** Fails on keys outside `known` (compared case-insensitively), naming the first unknown field. */
  rejectUnknown(known: readonly string[]): void {
    const allowed = new Set(known.map((name) => name.toLowerCase()));
    for (const key of Object.keys(this.source)) {
      if (!allowed.has(key.toLowerCase())) throw this.error(key, 'unknown field');
    }
  }
}

export function describe(value: JsonValue | undefined): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (isObject(value)) return 'a mapping';
  return `${typeof value} ${JSON.stringify(value)}`;
}
