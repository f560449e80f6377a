import { compileCel, type CelProgram, type CelVariables } from '@edict/cel';
import type { PolicyFieldError, ValidatingPolicySpec } from '../api/types';
import type { CompiledSpec, CompiledValidation, NamedProgram } from './compiled-expressions';
import { indexedVariableReferences, readsIdentifier, variableReferences } from './references';

export type EvaluationMode = 'Kubernetes' | 'JSON';

type ResultType = 'bool' | 'string' | 'any';

/**
 * What Kyverno declares for each kind of expression, with its libraries everywhere: match
 * conditions see the request only (no `variables`, no exceptions); variables, validations and
 * audit annotations see everything; message expressions everything but the authorizer, as
 * Kubernetes has it. A namespaced policy gets the namespace-bound `resource` overloads.
 */
function declarations(namespaced: boolean, imageVerification: boolean, authorizer: boolean, generator: boolean) {
  const kyverno = { kyverno: true, namespacedPolicy: namespaced } as const;
  // GeneratingPolicy: its variables see `generator` and `exceptions` but, as Kyverno declares
  // them, not the authorizer.
  if (generator) {
    return {
      matchConditions: { params: false, authorizer: false, ...kyverno } satisfies CelVariables,
      expressions: {
        params: false,
        authorizer: false,
        exceptions: true,
        ...kyverno,
        generator: true,
      } satisfies CelVariables,
      messages: {
        params: false,
        authorizer: false,
        exceptions: true,
        ...kyverno,
        generator: true,
      } satisfies CelVariables,
    };
  }
  // ImageValidatingPolicy: its variables, validations and messages also see `images`, `attestors`,
  // `attestations` and the image verification functions; its match conditions do not.
  const images = imageVerification ? ({ imageVerification: true } as const) : {};
  return {
    matchConditions: { params: false, authorizer: false, ...kyverno } satisfies CelVariables,
    expressions: { params: false, authorizer, exceptions: true, ...kyverno, ...images } satisfies CelVariables,
    messages: { params: false, authorizer: false, exceptions: true, ...kyverno, ...images } satisfies CelVariables,
  };
}

/** The variables Kyverno's libraries bind (kyvernoActivation). */
const LIBRARY_VARIABLES = ['http', 'resource', 'globalContext', 'image', 'generator'];

/** What a spec's expressions are compiled for (ValidatingPolicy by default). */
export interface CompileSpecOptions {
  /** ImageValidatingPolicy: Kyverno's image verification library (see declarations). */
  readonly imageVerification?: boolean;
  /**
   * MutatingPolicy: match conditions see `variables` and `exceptions` too (Kyverno binds both
   * before its match conditions), and no expression has `authorizer` (its compiler declares none).
   */
  readonly mutating?: boolean;
  /** GeneratingPolicy: Kyverno's generator library in variables (see declarations). */
  readonly generator?: boolean;
}

/** In JSON mode the payload is `object`; there is no admission request to read. */
const NOT_IN_JSON_MODE = ['request', 'oldObject', 'namespaceObject', 'authorizer'];

/**
 * Compiles and type-checks every expression of a spec, each problem reported at its field path
 * under `path` (`spec`, or an autogen config's spec), with Kyverno's wording:
 * `Invalid value: "<expression>": <compiler message>`.
 */
export function compileSpec(
  spec: Pick<
    ValidatingPolicySpec,
    'matchConstraints' | 'matchConditions' | 'variables' | 'validations' | 'auditAnnotations'
  >,
  path: string,
  mode: EvaluationMode,
  errors: PolicyFieldError[],
  namespaced = false,
  options: CompileSpecOptions = {},
): CompiledSpec {
  const {
    matchConditions: forConditions,
    expressions: forExpressions,
    messages: forMessages,
  } = declarations(
    namespaced,
    options.imageVerification === true,
    options.mutating !== true,
    options.generator === true,
  );
  const sources: string[] = [];
  const compile = (
    source: unknown,
    variables: CelVariables,
    result: ResultType,
    field: string,
    declared: ReadonlySet<string> | undefined,
  ): { program: CelProgram; reads: string[] } | undefined => {
    if (typeof source !== 'string' || source.trim() === '') {
      errors.push({ field, message: 'Required value' });
      return undefined;
    }
    const invalid = (message: string) =>
      errors.push({ field, message: `Invalid value: ${JSON.stringify(source)}: ${message}` });
    sources.push(source);
    const refused = undeclaredReference(source, mode, declared);
    if (refused) {
      invalid(refused);
      return undefined;
    }
    try {
      const program = compileCel(source, variables, result);
      return {
        program,
        reads: declared ? unique([...variableReferences(source), ...indexedVariableReferences(source)]) : [],
      };
    } catch (error) {
      invalid(`compilation failed: ${(error as Error).message}`);
      return undefined;
    }
  };

  const matchConditions: NamedProgram[] = [];
  // A MutatingPolicy's exceptions are decided before its match conditions, which may read them.
  const conditionVariables: CelVariables = options.mutating ? { ...forConditions, exceptions: true } : forConditions;
  const compileConditions = (declaredVariables: ReadonlySet<string> | undefined) =>
    (spec.matchConditions ?? []).forEach((condition, i) => {
      const at = `${path}.matchConditions[${i}].expression`;
      const compiled = compile(condition?.expression, conditionVariables, 'bool', at, declaredVariables);
      if (compiled) matchConditions.push({ name: String(condition.name ?? ''), ...compiled });
    });
  if (options.mutating !== true) compileConditions(undefined);

  // A variable sees the variables declared before it, as Kubernetes composes them.
  const declared = new Set<string>();
  const variables: NamedProgram[] = [];
  (spec.variables ?? []).forEach((variable, i) => {
    const at = `${path}.variables[${i}].expression`;
    const compiled = compile(variable?.expression, forExpressions, 'any', at, new Set(declared));
    const name = String(variable?.name ?? '');
    declared.add(name);
    if (compiled) variables.push({ name, ...compiled });
  });
  if (options.mutating === true) compileConditions(declared);

  const validations: CompiledValidation[] = [];
  (spec.validations ?? []).forEach((validation, index) => {
    const at = `${path}.validations[${index}]`;
    const compiled = compile(validation?.expression, forExpressions, 'bool', `${at}.expression`, declared);
    const message = validation?.messageExpression
      ? compile(validation.messageExpression, forMessages, 'string', `${at}.messageExpression`, declared)
      : undefined;
    if (!compiled) return;
    validations.push({
      index,
      program: compiled.program,
      reads: compiled.reads,
      message: typeof validation.message === 'string' ? validation.message : '',
      ...(message ? { messageProgram: message.program } : {}),
      messageReads: message?.reads ?? [],
      ...(validation.reason ? { reason: validation.reason } : {}),
    });
  });

  const auditAnnotations = (spec.auditAnnotations ?? []).flatMap((annotation, i) => {
    const at = `${path}.auditAnnotations[${i}].valueExpression`;
    const compiled = compile(annotation?.valueExpression, forExpressions, 'any', at, declared);
    return compiled ? [{ key: String(annotation.key ?? ''), ...compiled }] : [];
  });

  return {
    ...(spec.matchConstraints ? { matchConstraints: spec.matchConstraints } : {}),
    matchConditions,
    variables,
    variableIndex: new Map(variables.map((variable) => [variable.name, variable])),
    validations,
    auditAnnotations,
    readsRequest: sources.some((source) => readsIdentifier(source, 'request')),
    readsAuthorizer: sources.some((source) => readsIdentifier(source, 'authorizer')),
    readsLibraries: sources.some((source) => LIBRARY_VARIABLES.some((name) => readsIdentifier(source, name))),
  };
}

/**
 * A name the expression reads that Kyverno's environment does not declare for it: `variables` in
 * match conditions, a variable not declared (or declared later), the admission request in JSON mode.
 */
function undeclaredReference(source: string, mode: EvaluationMode, declared: ReadonlySet<string> | undefined) {
  if (mode === 'JSON') {
    const name = NOT_IN_JSON_MODE.find((candidate) => readsIdentifier(source, candidate));
    if (name)
      return `compilation failed: undeclared reference to '${name}' (JSON mode binds only object and variables)`;
  }
  if (!declared) {
    return readsIdentifier(source, 'variables') ? "compilation failed: undeclared reference to 'variables'" : undefined;
  }
  const unknown = variableReferences(source).find((name) => !declared.has(name));
  return unknown === undefined ? undefined : `compilation failed: undefined field '${unknown}'`;
}

function unique(names: string[]): string[] {
  return [...new Set(names)];
}
