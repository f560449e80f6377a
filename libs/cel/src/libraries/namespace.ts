import type { Environment } from '@marcbachmann/cel-js';

/**
 * cel-js resolves `time.now()` as a method call on a variable `time`; it has no namespaced
 * functions as cel-go has (`math.greatest`, Kyverno's `time.now`, `x509.decode`). A namespace is
 * therefore a constant of its own type (`<name>.Namespace`) whose methods are the namespace's
 * functions. Every library that adds functions to a namespace goes through here, so two libraries
 * sharing one (`math.round` and `math.greatest`) share its type.
 */
export function namespaceType(env: Environment, name: string): string {
  const type = `${name}.Namespace`;
  if (!env.hasVariable(name)) {
    // cel-js finds a value's type by its constructor: each namespace needs a class of its own.
    const Namespace = class extends CelNamespace {};
    env.registerType(type, Namespace);
    env.registerConstant(name, type, new Namespace(name));
  }
  return type;
}

/**
 * Registers `<namespace>.<function>(params): result`, e.g.
 * `namespaceFunction(env, 'time.truncate(google.protobuf.Timestamp, google.protobuf.Duration): google.protobuf.Timestamp', fn)`.
 * The handler gets the arguments only.
 */
export function namespaceFunction(env: Environment, signature: string, handler: (...args: never[]) => unknown): void {
  const dot = signature.indexOf('.');
  const namespace = signature.slice(0, dot);
  const type = namespaceType(env, namespace);
  env.registerFunction(`${type}.${signature.slice(dot + 1)}`, (_namespace: CelNamespace, ...args: unknown[]) =>
    (handler as (...args: unknown[]) => unknown)(...args),
  );
}

/** The value of a namespace constant; it carries nothing but its name. */
export class CelNamespace {
  constructor(readonly name: string) {}
}
