import type { Environment } from '@marcbachmann/cel-js';
import { celEnvironment, describe, parseCel } from '../compile';
import { CelMeter } from '../meter';
import { protobufOnly } from './classify';
import type { ConformanceCase, SpecDecl, SpecType } from './spec-types';
import { fromSpecValue, sameAsSpec, UnsupportedSpecValue } from './spec-values';

/** What became of one conformance test. */
export type Outcome =
  | { readonly kind: 'pass' }
  | { readonly kind: 'fail'; readonly reason: string }
  | { readonly kind: 'apart'; readonly rule: string };

/**
 * Runs one conformance test as compileCel runs a policy's expression: the environment policies get
 * (cloned, with the test's declarations added), Edict's parse with its rewrites, cel-js's type check
 * (unless the test disables it) and the evaluation under a CelMeter.
 */
export function runConformanceCase(c: ConformanceCase): Outcome {
  const apart = protobufOnly(c);
  if (apart) return { kind: 'apart', rule: apart };
  const test = c.test;
  try {
    const env = testEnvironment(test.typeEnv ?? [], Object.keys(test.bindings ?? {}));
    const activation: Record<string, unknown> = {};
    for (const [name, binding] of Object.entries(test.bindings ?? {})) {
      if (!binding.value) return { kind: 'fail', reason: `binding ${name} is not a value` };
      activation[name] = fromSpecValue(binding.value);
    }
    let parsed: ReturnType<typeof parseCel>;
    try {
      parsed = parseCel(env, test.expr);
    } catch (error) {
      return { kind: 'fail', reason: `parse: ${describe(error)}` };
    }
    if (!test.disableCheck) {
      const checked = parsed.check();
      if (!checked.valid) return { kind: 'fail', reason: `check: ${describe(checked.error)}` };
      const deduced = test.typedResult?.deducedType;
      if (deduced) {
        const want = celTypeName(deduced);
        if (!sameType(checked.type, want)) return { kind: 'fail', reason: `type ${checked.type}, want ${want}` };
      }
    }
    if (test.checkOnly) return { kind: 'pass' };
    let result: unknown;
    try {
      result = new CelMeter().run(() => parsed(activation));
    } catch (error) {
      if (test.evalError !== undefined || test.anyEvalErrors !== undefined) return { kind: 'pass' };
      return { kind: 'fail', reason: `eval: ${describe(error)}` };
    }
    if (result instanceof Promise) return { kind: 'fail', reason: 'evaluation returned a Promise' };
    if (test.evalError !== undefined || test.anyEvalErrors !== undefined)
      return { kind: 'fail', reason: `want an error, got ${show(result)}` };
    if (test.unknown !== undefined || test.anyUnknowns !== undefined)
      return { kind: 'fail', reason: 'unknowns are not supported' };
    const expected = test.value ?? test.typedResult?.result ?? { boolValue: true };
    return sameAsSpec(result, expected)
      ? { kind: 'pass' }
      : { kind: 'fail', reason: `got ${show(result)}, want ${JSON.stringify(expected)}` };
  } catch (error) {
    if (error instanceof UnsupportedSpecValue) return { kind: 'fail', reason: error.message };
    return { kind: 'fail', reason: `runner: ${describe(error)}` };
  }
}

const plain = celEnvironment({ params: false, authorizer: false });

/** The policy environment, cloned with the test's declarations when it has any. */
function testEnvironment(decls: readonly SpecDecl[], bindings: readonly string[]): Environment {
  if (decls.length === 0 && bindings.length === 0) return plain;
  const env = plain.clone();
  const declared = new Set<string>();
  for (const decl of decls) {
    if (decl.ident) {
      env.registerVariable(decl.name, decl.ident.type ? celTypeName(decl.ident.type) : 'dyn');
      declared.add(decl.name);
    }
    for (const overload of decl.function?.overloads ?? []) {
      const params = (overload.params ?? []).map(celTypeName);
      const result = overload.resultType ? celTypeName(overload.resultType) : 'dyn';
      const signature = overload.isInstanceFunction
        ? `${params[0]}.${decl.name}(${params.slice(1).join(', ')}): ${result}`
        : `${decl.name}(${params.join(', ')}): ${result}`;
      env.registerFunction(signature, () => {
        throw new Error(`${decl.name} is declared for type checking only`);
      });
    }
  }
  for (const name of bindings) if (!declared.has(name)) env.registerVariable(name, 'dyn');
  return env;
}

const PRIMITIVES: Record<string, string> = {
  BOOL: 'bool',
  INT64: 'int',
  UINT64: 'uint',
  DOUBLE: 'double',
  STRING: 'string',
  BYTES: 'bytes',
};

/** A conformance type in cel-js's spelling. */
export function celTypeName(type: SpecType): string {
  if (type.primitive) return PRIMITIVES[type.primitive] ?? 'dyn';
  if (type.dyn !== undefined) return 'dyn';
  if ('null' in type) return 'null';
  if (type.wellKnown === 'TIMESTAMP') return 'google.protobuf.Timestamp';
  if (type.wellKnown === 'DURATION') return 'google.protobuf.Duration';
  if (type.listType) return `list<${type.listType.elemType ? celTypeName(type.listType.elemType) : 'dyn'}>`;
  if (type.mapType) {
    const key = type.mapType.keyType ? celTypeName(type.mapType.keyType) : 'dyn';
    const value = type.mapType.valueType ? celTypeName(type.mapType.valueType) : 'dyn';
    return `map<${key}, ${value}>`;
  }
  if (type.typeParam) return type.typeParam;
  if (type.type) return 'type';
  if (type.abstractType) {
    const params = (type.abstractType.parameterTypes ?? []).map(celTypeName);
    const name = type.abstractType.name === 'optional_type' ? 'optional' : type.abstractType.name;
    return params.length ? `${name}<${params.join(', ')}>` : name;
  }
  throw new UnsupportedSpecValue(`type ${JSON.stringify(type)}`);
}

/**
 * cel-js abbreviates `list<dyn>` and `map<dyn, dyn>` in check results, and leaves type parameters no
 * argument bound (`[]` is `list<T>`) where cel-go's checker ends with dyn.
 */
function sameType(actual: string | undefined, want: string): boolean {
  const long = (name: string | undefined) => (name === 'list' ? 'list<dyn>' : name === 'map' ? 'map<dyn, dyn>' : name);
  return long(actual?.replace(/\b[A-Z]\b/g, 'dyn')) === long(want);
}

function show(value: unknown): string {
  try {
    return (
      JSON.stringify(value, (_key, item: unknown) => (typeof item === 'bigint' ? `${item}n` : item)) ?? String(value)
    );
  } catch {
    return String(value);
  }
}
