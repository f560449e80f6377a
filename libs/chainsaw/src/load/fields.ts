/** Typed, strict reading of a YAML document's fields, with errors naming the file, line and field. */
import {
  fieldLine,
  formatPath,
  isObject,
  parseDuration,
  type JsonObject,
  type JsonValue,
  type PathSegment,
  type SourceDocument,
} from '@edict/foundation';

export class ChainsawLoadError extends Error {
  override readonly name = 'ChainsawLoadError';
  constructor(
    readonly file: string,
    readonly field: string,
    readonly detail: string,
    readonly line?: number,
    readonly document?: number,
  ) {
    const where = [document !== undefined ? `document ${document + 1}` : '', line !== undefined ? `line ${line}` : '']
      .filter(Boolean)
      .join(', ');
    super(`${file}${where ? ` (${where})` : ''}: ${field ? `${field}: ` : ''}${detail}`);
  }
}

/** One object being read, its path inside the document, and where to report problems. */
export class Fields {
  constructor(
    readonly source: SourceDocument,
    readonly value: JsonObject,
    readonly path: readonly PathSegment[],
    allowed: readonly string[],
  ) {
    for (const key of Object.keys(value)) {
      if (!allowed.includes(key)) throw this.error(`unknown field "${key}"`, [...path, key]);
    }
  }

  static root(source: SourceDocument, allowed: readonly string[]): Fields {
    if (!isObject(source.value)) {
      throw new ChainsawLoadError(source.file, '', 'expected an object', source.line, source.index);
    }
    return new Fields(source, source.value, [], allowed);
  }

  error(detail: string, path: readonly PathSegment[] = this.path): ChainsawLoadError {
    return new ChainsawLoadError(
      this.source.file,
      formatPath(path),
      detail,
      fieldLine(this.source, [...path]) ?? this.source.line,
      this.source.index,
    );
  }

  has(key: string): boolean {
    return this.value[key] !== undefined && this.value[key] !== null;
  }

  raw(key: string): JsonValue | undefined {
    const value = this.value[key];
    return value === null ? undefined : value;
  }

  object(key: string, allowed: readonly string[]): Fields | undefined {
    const value = this.raw(key);
    if (value === undefined) return undefined;
    if (!isObject(value)) throw this.error(`expected an object, got ${describe(value)}`, [...this.path, key]);
    return new Fields(this.source, value, [...this.path, key], allowed);
  }

  /** An object kept as written (resources, assertion trees). */
  tree(key: string): JsonObject | undefined {
    const value = this.raw(key);
    if (value === undefined) return undefined;
    if (!isObject(value)) throw this.error(`expected an object, got ${describe(value)}`, [...this.path, key]);
    return value;
  }

  array(key: string): JsonValue[] {
    const value = this.raw(key);
    if (value === undefined) return [];
    if (!Array.isArray(value)) throw this.error(`expected a list, got ${describe(value)}`, [...this.path, key]);
    return value;
  }

  /** Each item of a list of objects, as Fields. */
  objects(key: string, allowed: readonly string[]): Fields[] {
    return this.array(key).map((item, i) => {
      const path = [...this.path, key, i];
      if (!isObject(item)) throw this.error(`expected an object, got ${describe(item)}`, path);
      return new Fields(this.source, item, path, allowed);
    });
  }

  string(key: string, required = false): string | undefined {
    const value = this.raw(key);
    if (value === undefined) {
      if (required) throw this.error('required field is missing', [...this.path, key]);
      return undefined;
    }
    if (typeof value !== 'string') throw this.error(`expected a string, got ${describe(value)}`, [...this.path, key]);
    if (required && value === '') throw this.error('must not be empty', [...this.path, key]);
    return value;
  }

  boolean(key: string): boolean | undefined {
    const value = this.raw(key);
    if (value === undefined) return undefined;
    if (typeof value !== 'boolean') throw this.error(`expected a boolean, got ${describe(value)}`, [...this.path, key]);
    return value;
  }

  /** A Go duration (`30s`, `1m30s`) in milliseconds. */
  duration(key: string): number | undefined {
    const value = this.string(key);
    if (value === undefined) return undefined;
    const nanos = parseDuration(value);
    if (nanos === undefined || nanos < 0) throw this.error(`invalid duration "${value}"`, [...this.path, key]);
    return nanos / 1e6;
  }

  oneOf<T extends string>(key: string, values: readonly T[]): T | undefined {
    const value = this.string(key);
    if (value === undefined) return undefined;
    if (!values.includes(value as T)) {
      throw this.error(`must be one of ${values.join(', ')}, got "${value}"`, [...this.path, key]);
    }
    return value as T;
  }
}

function describe(value: JsonValue): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${JSON.stringify(value)}`;
}
