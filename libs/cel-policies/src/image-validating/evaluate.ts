import {
  AccessReviews,
  CEL_LIMITS,
  CelLimitExceeded,
  CelMeter,
  describeCelError,
  IMAGE_VERIFIER_KEY,
  kyvernoActivation,
  toCel,
  type CelProgram,
} from '@edict/cel';
import type { PolicyResponse, RuleResponse } from '@edict/engine';
import {
  DEFAULT_EVALUATION_LIMITS,
  EvaluationBudget,
  cloneJson,
  errorMessage,
  parseImageReference,
  type JsonObject,
  type JsonValue,
} from '@edict/foundation';
import { matchResources, type AdmissionAttributes, type MatchedAs } from '@edict/native-policies';
import { variableReferences } from '../compile/references';
import type { CompiledCelPolicyException } from '../exceptions/compiled-exception';
import { authorizerFor, celValue } from '../evaluate/activation';
import { admissionAttributesOf, kyvernoRequestOf, namespaceOf } from '../evaluate/attributes';
import {
  applicableExceptions,
  auditAnnotations,
  conditionsHold,
  review,
  roundActivation,
  typeName,
  withLibraries,
  withoutAuthorizer,
} from '../evaluate/evaluate-policy';
import type { CelPolicyInput } from '../evaluate/input';
import { exceptionRule } from '../evaluate/responses';
import { PENDING, SpecRun } from '../evaluate/spec-run';
import { imageProgramsOf, type CompiledAttestor, type ImagePolicyPrograms, type ImageSpecPrograms } from './compile';
import type { CompiledImageValidatingPolicy } from './compiled-policy';
import { defaultExtractors } from './extract-images';
import { PolicyImageVerifier } from './image-verifier';
import {
  IVPOL_LIMITS,
  ImageVerificationRecord,
  type ImageValidatingPolicyContext,
  type ImageValidatingPolicyOutcome,
  type OciAccessRequest,
} from './ports';
import { policyRegistryAccess } from './credentials';
import { errorRule, failRule, passRule, policyResponse } from './responses';
import type { Attestor } from './types';

const MAX_ROUNDS = CEL_LIMITS.maxAuthorizerChecks + 1;
const NO_EXCEPTIONS = toCel({ allowedImages: [], allowedValues: [] });

/**
 * Kyverno's ImageValidatingPolicy engine on one request, for every policy given: each answers as
 * evaluateImageValidatingPolicy does, then `validationConfigurations.required` is enforced with
 * what every policy of the request verified (an image another policy verified counts).
 */
export async function evaluateImageValidatingPolicies(
  policies: readonly CompiledImageValidatingPolicy[],
  input: CelPolicyInput,
  context: ImageValidatingPolicyContext,
): Promise<ImageValidatingPolicyOutcome[]> {
  const record = context.verifications ?? new ImageVerificationRecord();
  const evaluated: Evaluated[] = [];
  for (const compiled of policies) {
    evaluated.push(await evaluateOne(compiled, input, { ...context, verifications: record }));
  }
  return evaluated.map((outcome) => enforceRequired(outcome, record));
}

/**
 * One ImageValidatingPolicy on one request. undefined when it does not apply (matchConstraints,
 * autogen configs', match conditions, a namespaced policy and an object outside its namespace);
 * otherwise one rule: `skip` for an exception, `fail` for a validation that does not hold (or an
 * image without digest under verifyDigest, or an unverified image under required), `pass`, or
 * `error` (the caller applies failurePolicy and validationActions).
 */
export async function evaluateImageValidatingPolicy(
  compiled: CompiledImageValidatingPolicy,
  input: CelPolicyInput,
  context: ImageValidatingPolicyContext,
): Promise<PolicyResponse | undefined> {
  const [outcome] = await evaluateImageValidatingPolicies([compiled], input, context);
  return outcome?.response;
}

interface Evaluated extends ImageValidatingPolicyOutcome {
  compiled: CompiledImageValidatingPolicy;
  /** Set when every validation held: `required` may still turn it into a failure. */
  passed?: { annotations: Record<string, string> };
}

function enforceRequired(outcome: Evaluated, record: ImageVerificationRecord): ImageValidatingPolicyOutcome {
  const { compiled, passed, response, matchedImages } = outcome;
  if (!passed || !response || !compiled.required) return { response, matchedImages };
  for (const image of matchedImages) {
    const { verified, attempted } = record.status(image);
    if (verified) continue;
    const message = attempted
      ? `image ${image} failed signature or attestation verification`
      : `image ${image} is not verified: no policy performed a signature or attestation check on it`;
    const rules = [failRule(compiled, message, passed.annotations)];
    return { response: { ...response, rules, ...warningsOf(compiled, rules) }, matchedImages };
  }
  return { response, matchedImages };
}

function warningsOf(compiled: CompiledImageValidatingPolicy, rules: RuleResponse[]) {
  if (!compiled.validationActions.includes('Warn')) return {};
  return { warnings: rules.filter((rule) => rule.status === 'fail').map((rule) => rule.message) };
}

async function evaluateOne(
  compiled: CompiledImageValidatingPolicy,
  input: CelPolicyInput,
  context: ImageValidatingPolicyContext & { verifications: ImageVerificationRecord },
): Promise<Evaluated> {
  const none: Evaluated = { compiled, response: undefined, matchedImages: [] };
  const programs = imageProgramsOf(compiled);
  const json = compiled.mode === 'JSON';
  const exceptions = applicableExceptions(compiled, context);
  let spec: ImageSpecPrograms | undefined;
  let attributes: AdmissionAttributes | undefined;
  let request: unknown = null;
  if (json) spec = programs.own;
  else {
    attributes = admissionAttributesOf(input);
    if (compiled.namespace !== undefined && objectNamespace(input) !== compiled.namespace) return none;
    const selected = selectSpec(programs, attributes, input);
    if (!selected) return none;
    if ('error' in selected) {
      return answer(compiled, input, [errorRule('match', 'failed to execute matching', selected.error)]);
    }
    spec = selected.spec;
    request = toCel(kyvernoRequestOf(attributes, selected.matchedAs));
  }

  const budget = new EvaluationBudget(DEFAULT_EVALUATION_LIMITS, context.deadline);
  const reviews = new AccessReviews(CEL_LIMITS.maxAuthorizerChecks);
  const libraries = kyvernoActivation(context.ports, {
    ...(compiled.namespace !== undefined ? { policyNamespace: compiled.namespace } : {}),
    ...(context.deadline ? { deadline: context.deadline } : {}),
    ...(context.allowHttpInNamespacedPolicies ? { allowHttpInNamespacedPolicies: true } : {}),
  });
  const base = withLibraries(
    json
      ? { object: celValue(input.jsonPayload) }
      : {
          object: celValue(attributes?.object),
          oldObject: celValue(attributes?.oldObject),
          request,
          namespaceObject: celValue(input.namespaceObject),
        },
    libraries,
  );
  const tools = { budget, reviews, attributes, programs, exceptions, context };
  try {
    for (let round = 0; round < MAX_ROUNDS; round++) {
      try {
        return await evaluateSpec(compiled, spec, base, input, { ...tools, meter: new CelMeter(budget) });
      } catch (error) {
        if (error !== PENDING) throw error;
        await reviews.resolve((question) => review(context.authorizer, question));
      }
    }
    return answer(compiled, input, [errorRule('', 'error', 'too many rounds of authorizer checks')]);
  } catch (error) {
    if (error instanceof CelLimitExceeded) return answer(compiled, input, [errorRule('', 'error', error.message)]);
    throw error;
  }
}

interface SpecTools {
  meter: CelMeter;
  budget: EvaluationBudget;
  reviews: AccessReviews;
  attributes: AdmissionAttributes | undefined;
  programs: ImagePolicyPrograms;
  exceptions: readonly CompiledCelPolicyException[];
  context: ImageValidatingPolicyContext & { verifications: ImageVerificationRecord };
}

async function evaluateSpec(
  compiled: CompiledImageValidatingPolicy,
  programs: ImageSpecPrograms,
  base: Record<string, unknown>,
  input: CelPolicyInput,
  tools: SpecTools,
): Promise<Evaluated> {
  const { spec } = programs;
  const activation = roundActivation(base);
  if (tools.attributes && spec.readsAuthorizer) activation.authorizer = authorizerFor(tools.attributes, tools.reviews);
  const run = new SpecRun(spec, activation, tools.meter, tools.reviews, tools.budget);
  const failed = (cause: string) =>
    answer(compiled, input, [errorRule('evaluation', 'failed to evaluate policy', cause)]);

  // Match conditions first: false (or an error under Ignore) and the policy does not apply.
  const conditions = await conditionsHold(run, spec.matchConditions, base);
  if ('error' in conditions) {
    return compiled.failurePolicy === 'Ignore' ? notApplied(compiled) : failed(conditions.error);
  }
  if (!conditions.holds) return notApplied(compiled);

  // Exceptions: one without images or allowedValues exempts the resource; the others' lists
  // reach the expressions as exceptions.allowedImages / allowedValues.
  const matched: CompiledCelPolicyException[] = [];
  const partial: CompiledCelPolicyException[] = [];
  for (const exception of tools.exceptions) {
    const decision = await conditionsHold(run, exception.matchConditions, base);
    if ('error' in decision) {
      if (compiled.failurePolicy === 'Ignore') continue;
      return failed(decision.error);
    }
    if (!decision.holds) continue;
    if (exception.images.length === 0 && exception.allowedValues.length === 0) matched.push(exception);
    else partial.push(exception);
  }
  if (matched.length > 0) return answer(compiled, input, [exceptionRule(matched)]);
  activation.exceptions =
    partial.length === 0
      ? NO_EXCEPTIONS
      : toCel({
          allowedImages: partial.flatMap((exception) => exception.images),
          allowedValues: partial.flatMap((exception) => exception.allowedValues),
        } as unknown as JsonObject);

  // The images the policy is about: extracted, then selected by matchImageReferences.
  const matches = (image: string) => matchesReferences(tools.programs, image, tools.meter);
  const images: Record<string, string[]> = {};
  const matchedImages: string[] = [];
  const extractors = new Map(json(compiled) ? [] : defaultExtractors(input.resource));
  for (const [name, program] of programs.extractors) extractors.set(name, program);
  for (const [name, program] of extractors) {
    const outcome = await run.evaluate(program, variableReferences(program.source));
    if ('error' in outcome) return failed(`images.${name}: ${describeCelError(outcome.error)}`);
    const list = outcome.value;
    if (!Array.isArray(list) || list.some((item) => typeof item !== 'string')) {
      return failed(`images.${name}: must evaluate to a list of strings, not ${typeName(list)}`);
    }
    images[name] = [];
    for (const image of list as string[]) {
      let selected: boolean;
      try {
        selected = matches(image);
      } catch (error) {
        return failed(errorMessage(error));
      }
      if (!selected) continue;
      images[name].push(image);
      matchedImages.push(image);
    }
  }
  const maxImages = tools.context.maxImages ?? IVPOL_LIMITS.maxImages;
  if (matchedImages.length > maxImages) {
    return failed(`the resource has ${matchedImages.length} images to verify, more than the limit of ${maxImages}`);
  }

  let access: OciAccessRequest;
  try {
    access = policyRegistryAccess(compiled);
  } catch (error) {
    return { ...failed(`spec.credentials.secrets: ${errorMessage(error)}`), matchedImages };
  }
  const verifier = new PolicyImageVerifier({
    matches,
    attestor: attestorResolver(tools.programs.attestors, run),
    attestations: tools.programs.attestations,
    ports: tools.context.images,
    access,
    ...pullSecretsNamespace(compiled, input),
    record: tools.context.verifications,
    ...(tools.context.deadline ? { deadline: tools.context.deadline } : {}),
    maxVerifications: IVPOL_LIMITS.maxVerifications,
  });
  activation.images = toCel(images);
  activation.attestations = toCel(
    Object.fromEntries([...tools.programs.attestations.keys()].map((name) => [name, name])),
  );
  // An attestor's value names it; the verifier resolves it (its expressions evaluated on first use).
  activation.attestors = toCel(
    Object.fromEntries(tools.programs.attestors.map((attestor) => [attestor.name, { name: attestor.name }])),
  );
  activation[IMAGE_VERIFIER_KEY] = verifier;

  for (const validation of spec.validations) {
    const outcome = await run.evaluate(validation.program, validation.reads);
    if ('error' in outcome) return { ...failed(describeCelError(outcome.error)), matchedImages };
    if (outcome.value === true) continue;
    if (outcome.value !== false) {
      return {
        ...answer(compiled, input, [
          errorRule(compiled.name, 'error', `expected a bool, got ${typeName(outcome.value)}`),
        ]),
        matchedImages,
      };
    }
    let message = validation.message;
    if (validation.messageProgram) {
      const text = await run.evaluate(
        validation.messageProgram,
        validation.messageReads,
        withoutAuthorizer(activation),
      );
      if ('error' in text) message = `failed to evaluate message expression: ${describeCelError(text.error)}`;
      else if (typeof text.value !== 'string')
        message = `failed to convert message expression to string: ${typeName(text.value)}`;
      else message = text.value.slice(0, CEL_LIMITS.maxMessageLength);
    }
    if (message === '') message = `CEL expression validation failed at index ${validation.index}`;
    const annotations = await auditAnnotations(run, spec);
    if ('error' in annotations) return { ...failed(annotations.error), matchedImages };
    return {
      ...answer(
        compiled,
        input,
        [failRule(compiled, message, annotations.values, validation.reason)],
        annotations.values,
      ),
      matchedImages,
    };
  }
  // verifyDigest once every validation held: a validation that fails decides the message (as
  // the suite's Kyverno reports it), and a policy whose validations hold still fails on an image
  // without digest, so the decision is the same as checking digests first.
  const undigested = imageWithoutDigest(compiled, matchedImages);
  if (undigested !== undefined) {
    if ('error' in undigested) return { ...failed(undigested.error), matchedImages };
    return {
      ...answer(compiled, input, [failRule(compiled, `image ${undigested.image} does not have a digest`, {})]),
      matchedImages,
    };
  }
  const annotations = await auditAnnotations(run, spec);
  if ('error' in annotations) return { ...failed(annotations.error), matchedImages };
  return {
    ...answer(compiled, input, [passRule(compiled, annotations.values)], annotations.values),
    matchedImages,
    passed: { annotations: annotations.values },
  };
}

/**
 * The spec that applies to the request: the policy's own when its matchConstraints select it, else
 * the first autogen config's that does (Kyverno evaluates each autogen config as a policy of its
 * own, with its own constraints and match conditions). undefined when none selects it.
 */
export function selectSpec(
  programs: ImagePolicyPrograms,
  attributes: AdmissionAttributes,
  input: CelPolicyInput,
): { spec: ImageSpecPrograms; matchedAs: MatchedAs } | { error: string } | undefined {
  const namespaceObject = (input.namespaceObject ?? null) as JsonObject | null;
  const candidates = [
    { spec: programs.own, matchConstraints: programs.own.spec.matchConstraints },
    ...programs.autogen,
  ];
  for (const candidate of candidates) {
    if (!candidate.matchConstraints) continue;
    const decision = matchResources(candidate.matchConstraints, attributes, namespaceObject);
    if (decision.matches) {
      return { spec: candidate.spec, matchedAs: { resource: decision.resource, kind: decision.kind } };
    }
    if (decision.error !== undefined) return { error: decision.error };
  }
  return undefined;
}

/** Under verifyDigest, the first matched image without a digest (or the one that does not parse). */
function imageWithoutDigest(
  compiled: CompiledImageValidatingPolicy,
  images: readonly string[],
): { image: string } | { error: string } | undefined {
  if (!compiled.verifyDigest) return undefined;
  for (const image of images) {
    try {
      if (!parseImageReference(image).digest) return { image };
    } catch (error) {
      return { error: `failed to parse image reference ${image}: ${errorMessage(error)}` };
    }
  }
  return undefined;
}

function answer(
  compiled: CompiledImageValidatingPolicy,
  input: CelPolicyInput,
  rules: RuleResponse[],
  annotations?: Record<string, string>,
): Evaluated {
  return { compiled, response: policyResponse(compiled, input, rules, annotations), matchedImages: [] };
}

function notApplied(compiled: CompiledImageValidatingPolicy): Evaluated {
  return { compiled, response: undefined, matchedImages: [] };
}

function json(compiled: CompiledImageValidatingPolicy): boolean {
  return compiled.mode === 'JSON';
}

/** matchImageReferences: none selects every image; otherwise any glob or expression that holds. */
export function matchesReferences(programs: ImagePolicyPrograms, image: string, meter: CelMeter): boolean {
  if (programs.references.length === 0) return true;
  for (const reference of programs.references) {
    if ('glob' in reference) {
      if (reference.glob.matches(image)) return true;
      continue;
    }
    let value: unknown;
    try {
      value = meter.run(() => reference.program.evaluate({ ref: image }));
    } catch (error) {
      throw new Error(
        `matchImageReferences expression ${JSON.stringify(reference.source)}: ${describeCelError(error)}`,
      );
    }
    if (value === true) return true;
    if (value !== false) {
      throw new Error(`matchImageReferences expression ${JSON.stringify(reference.source)} must evaluate to a bool`);
    }
  }
  return false;
}

/** The policy's attestors by name, their value expressions evaluated once, on first use. */
function attestorResolver(attestors: readonly CompiledAttestor[], run: SpecRun) {
  const resolved = new Map<string, Promise<Attestor>>();
  return (name: string): Promise<Attestor> | undefined => {
    const compiled = attestors.find((attestor) => attestor.name === name);
    if (!compiled) return undefined;
    let pending = resolved.get(name);
    if (!pending) {
      pending = resolveAttestor(compiled, run);
      resolved.set(name, pending);
    }
    return pending;
  };
}

async function resolveAttestor(compiled: CompiledAttestor, run: SpecRun): Promise<Attestor> {
  const attestor = cloneJson(compiled.attestor as unknown as JsonValue) as unknown as Attestor;
  for (const [field, program] of compiled.expressions) {
    const outcome = await evaluateString(run, program);
    if ('error' in outcome) {
      throw new Error(`failed to evaluate ${field} of attestor ${compiled.name}: ${outcome.error}`);
    }
    setAttestorValue(attestor, field, outcome.value);
  }
  return attestor;
}

async function evaluateString(run: SpecRun, program: CelProgram): Promise<{ value: string } | { error: string }> {
  const outcome = await run.evaluate(program, variableReferences(program.source));
  if ('error' in outcome) return { error: describeCelError(outcome.error) };
  if (typeof outcome.value !== 'string') return { error: `must evaluate to a string, not ${typeName(outcome.value)}` };
  return { value: outcome.value };
}

function setAttestorValue(
  attestor: Attestor,
  field: CompiledAttestor['expressions'] extends ReadonlyMap<infer K, unknown> ? K : never,
  value: string,
): void {
  switch (field) {
    case 'cosign.key.data':
      attestor.cosign = { ...attestor.cosign, key: { ...attestor.cosign?.key, data: value } };
      break;
    case 'cosign.certificate.cert':
      attestor.cosign = {
        ...attestor.cosign,
        certificate: { ...attestor.cosign?.certificate, cert: { value } },
      };
      break;
    case 'cosign.certificate.certChain':
      attestor.cosign = {
        ...attestor.cosign,
        certificate: { ...attestor.cosign?.certificate, certChain: { value } },
      };
      break;
    case 'notary.certs':
      attestor.notary = { ...attestor.notary, certs: { value } };
      break;
    case 'notary.tsaCerts':
      attestor.notary = { ...attestor.notary, tsaCerts: { value } };
      break;
  }
}

function pullSecretsNamespace(compiled: CompiledImageValidatingPolicy, input: CelPolicyInput) {
  if (compiled.namespace !== undefined) return { pullSecretsNamespace: compiled.namespace };
  const namespace = objectNamespace(input);
  return namespace ? { pullSecretsNamespace: namespace } : {};
}

function objectNamespace(input: CelPolicyInput): string {
  const { request } = input;
  return namespaceOf(request.resource ?? request.oldResource);
}
