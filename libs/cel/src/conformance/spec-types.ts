/**
 * The conformance tests in their protobuf JSON form (`cel.expr.conformance.test.SimpleTest` and
 * `cel.expr.Value` / `cel.expr.Type` / `cel.expr.Decl` as `toJson` writes them). Only the fields
 * the runner reads are typed.
 */
export interface SpecValue {
  nullValue?: null | 'NULL_VALUE';
  boolValue?: boolean;
  int64Value?: string;
  uint64Value?: string;
  doubleValue?: number | 'NaN' | 'Infinity' | '-Infinity';
  stringValue?: string;
  bytesValue?: string;
  enumValue?: { type?: string; value?: number };
  objectValue?: { '@type': string; value?: unknown } & Record<string, unknown>;
  mapValue?: { entries?: { key: SpecValue; value: SpecValue }[] };
  listValue?: { values?: SpecValue[] };
  typeValue?: string;
}

export interface SpecType {
  dyn?: object;
  null?: unknown;
  primitive?: 'BOOL' | 'INT64' | 'UINT64' | 'DOUBLE' | 'STRING' | 'BYTES';
  wrapper?: string;
  wellKnown?: 'ANY' | 'TIMESTAMP' | 'DURATION';
  listType?: { elemType?: SpecType };
  mapType?: { keyType?: SpecType; valueType?: SpecType };
  messageType?: string;
  typeParam?: string;
  type?: SpecType;
  abstractType?: { name: string; parameterTypes?: SpecType[] };
  function?: unknown;
  error?: unknown;
}

export interface SpecOverload {
  overloadId: string;
  params?: SpecType[];
  typeParams?: string[];
  resultType?: SpecType;
  isInstanceFunction?: boolean;
}

export interface SpecDecl {
  name: string;
  ident?: { type?: SpecType; value?: unknown };
  function?: { overloads?: SpecOverload[] };
}

export interface SpecTest {
  expr: string;
  description?: string;
  disableMacros?: boolean;
  disableCheck?: boolean;
  checkOnly?: boolean;
  typeEnv?: SpecDecl[];
  container?: string;
  bindings?: Record<string, { value?: SpecValue; error?: unknown; unknown?: unknown }>;
  value?: SpecValue;
  typedResult?: { result?: SpecValue; deducedType?: SpecType };
  evalError?: unknown;
  anyEvalErrors?: unknown;
  unknown?: unknown;
  anyUnknowns?: unknown;
}

/** One test with where it comes from: file (suite), section and name. */
export interface ConformanceCase {
  readonly file: string;
  readonly section: string;
  readonly name: string;
  readonly test: SpecTest;
}
