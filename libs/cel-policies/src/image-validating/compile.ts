import { compileCel, type CelProgram, type CelVariables } from '@edict/cel';
import { errorMessage, type KubeObject } from '@edict/foundation';
import type { ValidationAction } from '@edict/engine';
import type { MatchResources, PolicyFieldError, ValidatingPolicySpec } from '../api/types';
import { isImageValidatingPolicy } from '../api/kinds';
import { autogenConfigs, autogenStatus } from '../autogen/autogen';
import type { CompiledSpec } from '../compile/compiled-expressions';
import { compileSpec, type EvaluationMode } from '../compile/compile-spec';
import { withAutogenRules } from '../compile/compile-policy';
import { CompileMemo, type CompileBuild } from '../compile/compile-memo';
import type { CompiledImageValidatingPolicy } from './compiled-policy';
import { ImageGlob } from './glob';
import { imageValidatingSchemaErrors } from './schema-errors';
import type {
  Attestation,
  Attestor,
  ImageExtractor,
  ImageValidatingPolicyKind,
  ImageValidatingPolicySpec,
} from './types';

/** One matchImageReferences entry, compiled. */
export type CompiledImageReference = { glob: ImageGlob } | { program: CelProgram; source: string };

/** An attestor's value expressions (key, certificate, chain, notary certs), each a string. */
export interface CompiledAttestor {
  readonly name: string;
  readonly attestor: Attestor;
  /** Field (`cosign.key.data`...) -> the program computing it. */
  readonly expressions: ReadonlyMap<AttestorValueField, CelProgram>;
}

export type AttestorValueField =
  'cosign.key.data' | 'cosign.certificate.cert' | 'cosign.certificate.certChain' | 'notary.certs' | 'notary.tsaCerts';

/** One spec (the policy's own or an autogen config's) with its image extractors. */
export interface ImageSpecPrograms {
  readonly spec: CompiledSpec;
  /** spec.images by name (they replace the defaults of the same name). */
  readonly extractors: ReadonlyMap<string, CelProgram>;
}

/** What the evaluator runs; kept off the public CompiledImageValidatingPolicy. */
export interface ImagePolicyPrograms {
  readonly own: ImageSpecPrograms;
  readonly autogen: readonly { readonly spec: ImageSpecPrograms; readonly matchConstraints?: MatchResources }[];
  readonly references: readonly CompiledImageReference[];
  readonly attestors: readonly CompiledAttestor[];
  readonly attestations: ReadonlyMap<string, Attestation>;
}

const memo = new CompileMemo<CompiledImageValidatingPolicy, ImagePolicyPrograms>('compileImageValidatingPolicy', build);

/** Everything wrong with an ImageValidatingPolicy (schema and CEL compile/type-check), [] when valid. */
export function imageValidatingPolicyErrors(policy: KubeObject): PolicyFieldError[] {
  return memo.errors(policy);
}

/**
 * Compiles an ImageValidatingPolicy or NamespacedImageValidatingPolicy once per object (or uid and
 * resourceVersion). Throws ValidatingPolicyError with every problem, each at its field path.
 */
export function compileImageValidatingPolicy(policy: KubeObject): CompiledImageValidatingPolicy {
  return memo.compile(policy);
}

/** The programs behind a compiled policy (for the evaluator). */
export function imageProgramsOf(compiled: CompiledImageValidatingPolicy): ImagePolicyPrograms {
  return memo.programsOf(compiled);
}

/** Image extractors and attestor values see the request and Kyverno's libraries, not images or attestors. */
const FOR_EXTRACTORS: CelVariables = { params: false, authorizer: false, kyverno: true };
const FOR_REFERENCES: CelVariables = { params: false, authorizer: false, imageReference: true };

function build(policy: KubeObject): CompileBuild<CompiledImageValidatingPolicy, ImagePolicyPrograms> {
  const errors: PolicyFieldError[] = [];
  if (!isImageValidatingPolicy(policy)) {
    errors.push({
      field: 'kind',
      message: `Unsupported value: ${JSON.stringify(policy.kind)}: not a policies.kyverno.io ImageValidatingPolicy`,
    });
    return { errors };
  }
  const name = policy.metadata?.name;
  if (typeof name !== 'string' || name === '') errors.push({ field: 'metadata.name', message: 'Required value' });
  errors.push(...imageValidatingSchemaErrors(policy.spec));
  if (errors.some((error) => error.field === 'spec' || error.field.startsWith('spec.evaluation.mode')))
    return { errors };
  const spec = policy.spec as unknown as ImageValidatingPolicySpec;
  const mode: EvaluationMode = spec.evaluation?.mode === 'JSON' ? 'JSON' : 'Kubernetes';
  const kind = policy.kind as ImageValidatingPolicyKind;
  const namespaced = kind === 'NamespacedImageValidatingPolicy';

  const own = compileImageSpec(spec, 'spec', mode, errors, namespaced);
  const references = compileReferences(spec, errors);
  const attestors = compileAttestors(spec, errors, namespaced);
  // Kyverno's CanAutoGen for image policies: Pods alone (`pods/ephemeralcontainers` turns autogen off).
  const podsOnly = (spec.matchConstraints?.resourceRules ?? []).every(
    (rule) => (rule.resources ?? []).length === 1 && rule.resources?.[0] === 'pods',
  );
  const configs = mode === 'Kubernetes' && podsOnly ? autogenConfigs(spec as unknown as ValidatingPolicySpec) : [];
  const autogenErrors: PolicyFieldError[] = [];
  const autogen = configs.map((config) => ({
    spec: compileImageSpec(
      config.spec as unknown as ImageValidatingPolicySpec,
      `status.autogen.configs.${config.name}.spec`,
      mode,
      autogenErrors,
      namespaced,
    ),
    ...(config.spec.matchConstraints ? { matchConstraints: config.spec.matchConstraints } : {}),
  }));
  if (errors.length === 0) errors.push(...autogenErrors);
  if (errors.length > 0) return { errors };

  const actions = (spec.validationActions ?? []).length > 0 ? (spec.validationActions as ValidationAction[]) : ['Deny'];
  const configurations = spec.validationConfigurations ?? {};
  const compiled: CompiledImageValidatingPolicy = {
    policy,
    kind,
    name: name as string,
    ...(namespaced ? { namespace: policy.metadata?.namespace || 'default' } : {}),
    validationActions: Object.freeze([...actions]) as readonly ValidationAction[],
    failurePolicy: spec.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
    admission: spec.evaluation?.admission?.enabled !== false,
    background: spec.evaluation?.background?.enabled !== false,
    mode,
    ...(spec.webhookConfiguration?.timeoutSeconds !== undefined
      ? { timeoutSeconds: spec.webhookConfiguration.timeoutSeconds }
      : {}),
    mutateDigest: configurations.mutateDigest !== false,
    verifyDigest: configurations.verifyDigest !== false,
    required: configurations.required !== false,
    ...(spec.credentials ? { credentials: spec.credentials } : {}),
    matchConstraints: withAutogenRules(
      spec.matchConstraints,
      configs.map((config) => config.spec.matchConstraints),
    ),
    matchConditions: Object.freeze([...(spec.matchConditions ?? [])]),
    autogen: Object.freeze(configs),
    autogenStatus: autogenStatus(configs),
  };
  const programs: ImagePolicyPrograms = {
    own,
    autogen,
    references,
    attestors,
    attestations: new Map((spec.attestations ?? []).map((attestation) => [attestation.name as string, attestation])),
  };
  return { compiled, programs, errors };
}

function compileImageSpec(
  spec: ImageValidatingPolicySpec,
  path: string,
  mode: EvaluationMode,
  errors: PolicyFieldError[],
  namespaced: boolean,
): ImageSpecPrograms {
  const compiled = compileSpec(spec, path, mode, errors, namespaced, { imageVerification: true });
  const extractors = new Map<string, CelProgram>();
  (spec.images ?? []).forEach((extractor: ImageExtractor, i) => {
    // A missing expression is the schema's error already.
    if (typeof extractor?.expression !== 'string' || extractor.expression === '') return;
    const program = compileExpression(
      extractor.expression,
      FOR_EXTRACTORS,
      'any',
      `${path}.images[${i}].expression`,
      errors,
    );
    if (program && extractor.name) extractors.set(extractor.name, program);
  });
  return { spec: compiled, extractors };
}

function compileReferences(spec: ImageValidatingPolicySpec, errors: PolicyFieldError[]): CompiledImageReference[] {
  const out: CompiledImageReference[] = [];
  (spec.matchImageReferences ?? []).forEach((reference, i) => {
    const at = `spec.matchImageReferences[${i}]`;
    if (typeof reference?.glob === 'string' && reference.glob !== '') {
      try {
        out.push({ glob: ImageGlob.compile(reference.glob) });
      } catch (error) {
        errors.push({
          field: `${at}.glob`,
          message: `Invalid value: ${JSON.stringify(reference.glob)}: ${errorMessage(error)}`,
        });
      }
    } else if (typeof reference?.expression === 'string' && reference.expression !== '') {
      const program = compileExpression(reference.expression, FOR_REFERENCES, 'bool', `${at}.expression`, errors);
      if (program) out.push({ program, source: reference.expression });
    }
  });
  return out;
}

function compileAttestors(
  spec: ImageValidatingPolicySpec,
  errors: PolicyFieldError[],
  namespaced: boolean,
): CompiledAttestor[] {
  const variables: CelVariables = { ...FOR_EXTRACTORS, namespacedPolicy: namespaced };
  return (spec.attestors ?? []).map((attestor, i) => {
    const at = `spec.attestors[${i}]`;
    const expressions = new Map<AttestorValueField, CelProgram>();
    const add = (field: AttestorValueField, source: string | undefined, where: string) => {
      if (typeof source !== 'string' || source === '') return;
      const program = compileExpression(source, variables, 'string', where, errors);
      if (program) expressions.set(field, program);
    };
    add('cosign.key.data', attestor.cosign?.key?.expression, `${at}.cosign.key.expression`);
    add(
      'cosign.certificate.cert',
      attestor.cosign?.certificate?.cert?.expression,
      `${at}.cosign.certificate.cert.expression`,
    );
    add(
      'cosign.certificate.certChain',
      attestor.cosign?.certificate?.certChain?.expression,
      `${at}.cosign.certificate.certChain.expression`,
    );
    add('notary.certs', attestor.notary?.certs?.expression, `${at}.notary.certs.expression`);
    add('notary.tsaCerts', attestor.notary?.tsaCerts?.expression, `${at}.notary.tsaCerts.expression`);
    return { name: attestor.name ?? '', attestor, expressions };
  });
}

function compileExpression(
  source: unknown,
  variables: CelVariables,
  result: 'bool' | 'string' | 'any',
  field: string,
  errors: PolicyFieldError[],
): CelProgram | undefined {
  if (typeof source !== 'string' || source.trim() === '') {
    errors.push({ field, message: 'Required value' });
    return undefined;
  }
  try {
    return compileCel(source, variables, result);
  } catch (error) {
    errors.push({
      field,
      message: `Invalid value: ${JSON.stringify(source)}: compilation failed: ${errorMessage(error)}`,
    });
    return undefined;
  }
}
