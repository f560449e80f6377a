import { Environment, type ASTNode, type ParseResult } from '@marcbachmann/cel-js';
import { BoundedCache } from '@edict/foundation';
import { AUTHORIZER_TYPE, registerAuthz } from './libraries/authz';
import { registerCidr } from './libraries/cidr';
import { registerEncoders } from './libraries/encoders';
import { registerIp } from './libraries/ip';
import { registerLists } from './libraries/lists';
import { registerListsExtension } from './libraries/lists-ext';
import { registerMath } from './libraries/math';
import { registerMutationTypes } from './libraries/mutation';
import { registerNamedFormats } from './libraries/named-formats';
import { registerNamespaces } from './libraries/namespaces';
import { registerQuantity } from './libraries/quantity';
import { registerRegex } from './libraries/regex';
import { REPLACED_METHODS, restoreReplacedNames } from './libraries/replaced';
import { registerSemver } from './libraries/semver';
import { registerSets } from './libraries/sets';
import { registerStrings } from './libraries/strings';
import { registerUrl } from './libraries/url';
import { registerKyverno } from './kyverno/environment';
import { GENERATOR_TYPE, registerGenerator } from './kyverno/generator';
import { registerImageVerify, rewriteImageVerifyCall } from './kyverno/image-verify';
import { CEL_LIMITS } from './limits';
import { registerLanguage, rewriteLanguage } from './language';

/** Which optional variables an expression may use (Kubernetes declares them per expression kind). */
export interface CelVariables {
  /** `params`: the rule has paramKind and paramRef. */
  readonly params: boolean;
  /** `authorizer`: validations, variables and preconditions have it; message expressions do not. */
  readonly authorizer: boolean;
  /** `exceptions` (allowedImages, allowedValues): Kyverno's CEL policies bind it. */
  readonly exceptions?: boolean;
  /**
   * Kyverno's CEL libraries (ValidatingPolicy and the other policies.kyverno.io kinds): `http`,
   * `resource`, `globalContext`, `image`, `json`, `yaml` and the image, user, hash, math, random,
   * x509, time, transform and gzip functions. Classic validate.cel and ValidatingAdmissionPolicy
   * leave it off (Kubernetes' libraries only). Values: kyvernoActivation().
   */
  readonly kyverno?: boolean;
  /** With `kyverno`: the expression is a namespaced policy's (`resource` calls take no namespace). */
  readonly namespacedPolicy?: boolean;
  /**
   * ImageValidatingPolicy: `images`, `attestors`, `attestations` and Kyverno's image verification
   * functions (verifyImageSignatures, verifyAttestationSignatures, extractPayload, getImageData),
   * answered by the CelImageVerifier in the activation (kyverno/image-verify.ts).
   */
  readonly imageVerification?: boolean;
  /** An ImageValidatingPolicy's matchImageReferences expression: `ref` (the image) only matters. */
  readonly imageReference?: boolean;
  /**
   * Mutation expressions (Kubernetes' HasPatchTypes): `Object{...}` / `Object.spec{...}` typed object
   * construction, `JSONPatch{...}` and `jsonpatch.escapeKey` (libraries/mutation.ts).
   */
  readonly patchTypes?: boolean;
  /**
   * With `kyverno`: a GeneratingPolicy's variables and generate expressions, `generator` and its
   * `Apply` (kyverno/generator.ts; no namespace argument for a namespaced policy).
   */
  readonly generator?: boolean;
}

/**
 * What the expression must evaluate to: validations and preconditions bool, messages string,
 * ApplyConfiguration mutations `Object`, JSONPatch mutations a list of `JSONPatch` (dyn is accepted:
 * the evaluation checks it).
 */
export type CelResultType = 'bool' | 'string' | 'any' | 'Object' | 'list<JSONPatch>';

const ACCEPTED_TYPES: Readonly<Record<Exclude<CelResultType, 'any'>, readonly string[]>> = {
  bool: ['bool', 'dyn'],
  string: ['string', 'dyn'],
  Object: ['Object', 'dyn'],
  'list<JSONPatch>': ['list<JSONPatch>', 'list<dyn>', 'list', 'dyn'],
};

/** An expression that does not parse or type-check; the policy cannot run it. */
export class CelCompileError extends Error {
  override readonly name = 'CelCompileError';
}

/** A compiled expression; evaluate it under a CelMeter (see meter.ts). */
export interface CelProgram {
  readonly source: string;
  evaluate(activation: Readonly<Record<string, unknown>>): unknown;
}

/**
 * Compiles a validate.cel expression: bounded length, parsed and type-checked against the variables
 * Kubernetes' admission CEL declares (`object`, `oldObject`, `request`, `namespaceObject`,
 * `variables`, and `params` / `authorizer` when given). Compiled programs are cached.
 */
export function compileCel(source: string, variables: CelVariables, result: CelResultType): CelProgram {
  const key = `${environmentKey(variables)}:${result}:${source}`;
  const cached = programs.get(key);
  if (cached) return cached;
  if (source.length > CEL_LIMITS.maxExpressionLength) {
    throw new CelCompileError(`expression is longer than ${CEL_LIMITS.maxExpressionLength} characters`);
  }
  if (source.trim() === '') throw new CelCompileError('expression is empty');
  const env = environment(variables);
  let parsed: ParseResult;
  try {
    parsed = parseCel(env, source);
  } catch (error) {
    throw new CelCompileError(describe(error));
  }
  const checked = parsed.check();
  if (!checked.valid) throw new CelCompileError(describe(checked.error));
  if (result !== 'any' && !ACCEPTED_TYPES[result].includes(checked.type ?? 'dyn')) {
    throw new CelCompileError(`expression must evaluate to ${result}, not ${checked.type}`);
  }
  const program: CelProgram = { source, evaluate: (activation) => parsed(activation) };
  programs.set(key, program);
  return program;
}

/**
 * The environment compileCel uses for these variables. Cloning it freezes it, so a caller that
 * declares more (the conformance suite declares each test's variables) clones it and adds there.
 */
export function celEnvironment(variables: CelVariables): Environment {
  return environment(variables);
}

/** Parses an expression in a CEL environment with Edict's rewrites of the tree applied. Throws cel-js's ParseError. */
export function parseCel(env: Environment, source: string): ParseResult {
  const parsed = env.parse(source);
  rewriteMatches(parsed.ast);
  rewriteLanguage(parsed.ast, env);
  rewriteImageVerifyCalls(parsed.ast);
  return parsed;
}

/** A CEL error as one line: its summary and where in the expression it is. */
export function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const summary = (error as { summary?: unknown }).summary;
  if (typeof summary !== 'string') return restoreReplacedNames(error.message);
  const start = (error as { range?: { start?: number } }).range?.start;
  return restoreReplacedNames(typeof start === 'number' ? `${summary} (at character ${start + 1})` : summary);
}

const programs = new BoundedCache<CelProgram>(2_000, CEL_LIMITS.maxExpressionLength + 16);
const environments = new Map<string, Environment>();
let base: Environment | undefined;

function environmentKey(variables: CelVariables): string {
  const kyverno = variables.kyverno ? (variables.namespacedPolicy ? 'kn' : 'k') : '';
  return `${variables.params ? 'p' : ''}${variables.authorizer ? 'a' : ''}${kyverno}${variables.exceptions ? 'e' : ''}${variables.imageVerification ? 'i' : ''}${variables.imageReference ? 'r' : ''}${variables.patchTypes ? 'm' : ''}${variables.generator ? 'g' : ''}`;
}

function environment(variables: CelVariables): Environment {
  const key = environmentKey(variables);
  let env = environments.get(key);
  if (!env) {
    base ??= baseEnvironment();
    env = base.clone();
    if (variables.params) env.registerVariable('params', 'dyn');
    if (variables.authorizer) env.registerVariable('authorizer', AUTHORIZER_TYPE);
    if (variables.exceptions) env.registerVariable('exceptions', 'dyn');
    if (variables.kyverno) registerKyverno(env, { namespaced: variables.namespacedPolicy === true });
    if (variables.imageVerification) registerImageVerify(env);
    if (variables.imageReference) env.registerVariable('ref', 'string');
    if (variables.patchTypes) registerMutationTypes(env);
    if (variables.kyverno && variables.generator) {
      registerGenerator(env, variables.namespacedPolicy === true);
      env.registerVariable('generator', GENERATOR_TYPE);
    }
    environments.set(key, env);
  }
  return env;
}

function baseEnvironment(): Environment {
  // Kubernetes' CEL: optional types on, mixed-type list and map literals allowed.
  const env = new Environment({
    enableOptionalTypes: true,
    homogeneousAggregateLiterals: false,
    limits: { maxAstNodes: 5_000, maxDepth: 100, maxListElements: 1_000, maxMapEntries: 1_000 },
  });
  for (const name of ['object', 'oldObject', 'request', 'namespaceObject', 'variables'])
    env.registerVariable(name, 'dyn');
  registerLanguage(env);
  registerNamespaces(env);
  registerStrings(env);
  registerLists(env);
  registerListsExtension(env);
  registerMath(env);
  registerEncoders(env);
  registerSets(env);
  registerIp(env);
  registerCidr(env);
  registerNamedFormats(env);
  registerSemver(env);
  registerRegex(env);
  registerUrl(env);
  registerQuantity(env);
  registerAuthz(env);
  return env;
}

/** Image verification calls find their verifier in the activation (kyverno/image-verify.ts). */
function rewriteImageVerifyCalls(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) rewriteImageVerifyCalls(item);
    return;
  }
  if (!node || typeof node !== 'object' || typeof (node as ASTNode).op !== 'string') return;
  rewriteImageVerifyCall(node as never);
  rewriteImageVerifyCalls((node as { args: unknown }).args);
}

/** Points calls of the methods Edict replaces (see libraries/replaced.ts) at Edict's implementations. */
function rewriteMatches(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) rewriteMatches(item);
    return;
  }
  if (!node || typeof node !== 'object' || typeof (node as ASTNode).op !== 'string') return;
  const ast = node as { op: string; args: unknown };
  if (ast.op === 'rcall' && Array.isArray(ast.args) && REPLACED_METHODS.has(ast.args[0] as string)) {
    ast.args[0] = REPLACED_METHODS.get(ast.args[0] as string);
  }
  rewriteMatches(ast.args);
}
