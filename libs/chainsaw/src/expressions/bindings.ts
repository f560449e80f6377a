import type { JsonValue } from '@edict/foundation';

/**
 * Immutable bindings (chainsaw's lexical scoping): `with` returns a new scope in which the name
 * hides an outer binding of the same name; the outer scope is unchanged. Names exclude the `$`.
 */
export class Bindings {
  private constructor(private readonly values: ReadonlyMap<string, JsonValue>) {}

  static empty(): Bindings {
    return new Bindings(new Map());
  }

  static of(record: Readonly<Record<string, JsonValue>>): Bindings {
    return new Bindings(new Map(Object.entries(record)));
  }

  with(name: string, value: JsonValue): Bindings {
    const next = new Map(this.values);
    next.set(name, value);
    return new Bindings(next);
  }

  withAll(record: Readonly<Record<string, JsonValue>>): Bindings {
    const next = new Map(this.values);
    for (const [name, value] of Object.entries(record)) next.set(name, value);
    return new Bindings(next);
  }

  has(name: string): boolean {
    return this.values.has(name);
  }

  get(name: string): JsonValue | undefined {
    return this.values.get(name);
  }

  names(): string[] {
    return [...this.values.keys()];
  }
}

/** Chainsaw's rule for binding names: a word (`\w+`), used as `$name` in expressions. */
export const BINDING_NAME = /^\w+$/;
