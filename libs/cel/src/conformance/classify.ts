import type { ConformanceCase, SpecType, SpecValue } from './spec-types';

/** The suites (files) of cel-spec and what the floor measures them as. */
export type SuiteGroup = 'core' | 'extension' | 'protobuf' | 'not-enabled';

/** The core language: every test of these counts unless it needs protobuf messages (see `protobufOnly`). */
const CORE = new Set([
  'basic',
  'comparisons',
  'conversions',
  'dynamic',
  'fields',
  'fp_math',
  'integer_math',
  'lists',
  'logic',
  'macros',
  'macros2',
  'namespace',
  'parse',
  'plumbing',
  'string',
  'timestamps',
  'type_deductions',
  'unknowns',
]);
/** cel-go's extensions that Kubernetes and Kyverno enable (cel-go's test file names). */
const EXTENSIONS = new Set([
  'string_ext',
  'math_ext',
  'encoders_ext',
  'bindings_ext',
  'optionals',
  'lists_ext',
  'sets_ext',
]);
/** Suites whose subject is protobuf itself: messages, proto2 extensions, enums, wrapper types. */
const PROTOBUF = new Set(['proto2', 'proto2_ext', 'proto3', 'enums', 'wrappers']);

export function suiteGroup(file: string): SuiteGroup {
  if (CORE.has(file)) return 'core';
  if (EXTENSIONS.has(file)) return 'extension';
  if (PROTOBUF.has(file)) return 'protobuf';
  // block_ext (cel.block, cel-go's form for common subexpressions) and any suite added later.
  return 'not-enabled';
}

/** Protobuf message and wrapper types the expression text may name (Timestamp and Duration are CEL's own). */
const PROTO_NAMES =
  /\b(?:TestAllTypes|NestedTestAllTypes|TestRequired|NestedMessage|NestedEnum|GlobalEnum|cel\.expr\.conformance|google\.protobuf\.(?!Timestamp\b|Duration\b)\w+)\b/;

/**
 * Why a test needs protobuf (message types, `google.protobuf.*` wrappers and JSON types, proto enums),
 * which Edict's CEL (Kubernetes' unstructured objects) does not have; undefined when it does not.
 * Rules, in order: the suite is about protobuf; the container is a proto package; the expression
 * names a message, enum or wrapper type; a declaration has a message or wrapper type; a binding or
 * the expected value is a message (other than Timestamp/Duration) or an enum value.
 */
export function protobufOnly(c: ConformanceCase): string | undefined {
  if (PROTOBUF.has(c.file)) return `suite ${c.file} is about protobuf`;
  const test = c.test;
  if (test.container?.startsWith('cel.expr.conformance') || test.container?.startsWith('google.'))
    return `container ${test.container} is a protobuf package`;
  const named = PROTO_NAMES.exec(test.expr);
  if (named) return `expression names protobuf type ${named[0]}`;
  for (const decl of test.typeEnv ?? []) {
    if (decl.ident?.type && protoType(decl.ident.type)) return `declaration ${decl.name} has a protobuf type`;
    for (const overload of decl.function?.overloads ?? []) {
      if ([...(overload.params ?? []), overload.resultType].some((t) => t && protoType(t)))
        return `function ${decl.name} has a protobuf type`;
    }
  }
  for (const [name, binding] of Object.entries(test.bindings ?? {})) {
    if (binding.value && protoValue(binding.value)) return `binding ${name} is a protobuf message or enum`;
  }
  const expected = test.value ?? test.typedResult?.result;
  if (expected && protoValue(expected)) return 'the expected value is a protobuf message or enum';
  if (test.typedResult?.deducedType && protoType(test.typedResult.deducedType))
    return 'the expected type is a protobuf type';
  return undefined;
}

function protoType(type: SpecType): boolean {
  if (type.messageType !== undefined || type.wrapper !== undefined || type.wellKnown === 'ANY') return true;
  const nested = [
    type.listType?.elemType,
    type.mapType?.keyType,
    type.mapType?.valueType,
    type.type,
    ...(type.abstractType?.parameterTypes ?? []),
  ];
  return nested.some((t) => t !== undefined && protoType(t));
}

const CEL_MESSAGES = new Set([
  'type.googleapis.com/google.protobuf.Timestamp',
  'type.googleapis.com/google.protobuf.Duration',
]);

function protoValue(value: SpecValue): boolean {
  if (value.enumValue) return true;
  if (value.objectValue) return !CEL_MESSAGES.has(value.objectValue['@type']);
  if (value.listValue) return (value.listValue.values ?? []).some(protoValue);
  if (value.mapValue) return (value.mapValue.entries ?? []).some((e) => protoValue(e.key) || protoValue(e.value));
  return false;
}
