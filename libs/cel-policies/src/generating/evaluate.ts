import {
  AccessReviews,
  CelLimitExceeded,
  CelMeter,
  celToJson,
  describeCelError,
  kyvernoActivation,
  toCel,
  type CelProgram,
} from '@edict/cel';
import type { RuleResponse } from '@edict/engine';
import {
  DEFAULT_EVALUATION_LIMITS,
  EvaluationBudget,
  EvaluationDeadlineExceeded,
  errorMessage,
  isObject,
  type JsonObject,
  type JsonValue,
} from '@edict/foundation';
import { matchResources } from '@edict/native-policies';
import { celValue } from '../evaluate/activation';
import { admissionAttributesOf, kyvernoRequestOf } from '../evaluate/attributes';
import { applicableExceptions, auditAnnotations, conditionsHold, roundActivation } from '../evaluate/evaluate-policy';
import type { CelPolicyInput } from '../evaluate/input';
import { exceptionRule } from '../evaluate/responses';
import { SpecRun, type Outcome } from '../evaluate/spec-run';
import type { CompiledCelPolicyException } from '../exceptions/compiled-exception';
import { generatingProgramsOf } from './compile';
import type { CompiledGeneration } from './compiled-programs';
import { DownstreamRecorder, type GenerationOrigin } from './downstream';
import type { TemplateNode } from './template';
import {
  GPOL_LIMITS,
  type CompiledGeneratingPolicy,
  type GeneratingPolicyContext,
  type GeneratingPolicyResult,
} from './types';

/**
 * Kyverno's GeneratingPolicy engine on one trigger (pkg/cel/policies/gpol): undefined when the
 * policy does not apply (matchConstraints; a NamespacedGeneratingPolicy and a trigger outside its
 * namespace). Otherwise: exceptions first (a matching one allowing no images or values exempts
 * the trigger: `skip`, or `pass` by its reportResult; others fill `exceptions`), then the match
 * conditions (false: `pass` generating nothing, as Kyverno answers), then every generate entry in
 * order; the objects they hand to `generator.Apply` (or a template renders) are the downstream.
 * Any error fails the whole evaluation: nothing is generated.
 */
export async function evaluateGeneratingPolicy(
  compiled: CompiledGeneratingPolicy,
  input: CelPolicyInput,
  context: GeneratingPolicyContext,
): Promise<GeneratingPolicyResult | undefined> {
  const programs = generatingProgramsOf(compiled);
  const attributes = admissionAttributesOf(input);
  const triggerObject = (attributes.object ?? attributes.oldObject ?? {}) as JsonObject;
  const triggerMetadata = isObject(triggerObject.metadata) ? triggerObject.metadata : {};
  const triggerNamespace = typeof triggerMetadata.namespace === 'string' ? triggerMetadata.namespace : '';
  const result = resultFor(compiled, triggerObject);
  // A namespaced policy never reaches outside its namespace: cluster-scoped triggers included.
  if (compiled.namespace !== undefined && triggerNamespace !== compiled.namespace) return undefined;
  const namespaceObject = (input.namespaceObject ?? null) as JsonObject | null;
  const decision = matchResources(compiled.matchConstraints, attributes, namespaceObject);
  if (!decision.matches) {
    return decision.error !== undefined ? result('error', `failed to execute matching: ${decision.error}`) : undefined;
  }

  const origin: GenerationOrigin = {
    policyName: compiled.name,
    ...(compiled.namespace !== undefined ? { policyNamespace: compiled.namespace } : {}),
    triggerName: attributes.name,
    triggerNamespace,
    triggerGroup: attributes.kind.group,
    triggerVersion: attributes.kind.version,
    triggerKind: attributes.kind.kind,
    triggerUid: typeof triggerMetadata.uid === 'string' ? triggerMetadata.uid : '',
  };
  const recorder = new DownstreamRecorder(
    origin,
    context.mode ?? 'controller',
    { ...GPOL_LIMITS, ...context.limits },
    context.isNamespaced?.bind(context),
  );
  const libraries = kyvernoActivation(
    { ...context.ports, generator: recorder },
    {
      ...(compiled.namespace !== undefined ? { policyNamespace: compiled.namespace } : {}),
      ...(context.deadline ? { deadline: context.deadline } : {}),
      ...(context.allowHttpInNamespacedPolicies ? { allowHttpInNamespacedPolicies: true } : {}),
    },
  );
  const base: Record<string, unknown> = {
    object: celValue(attributes.object),
    oldObject: celValue(attributes.oldObject),
    request: toCel(kyvernoRequestOf(attributes, { resource: decision.resource, kind: decision.kind })),
    namespaceObject: celValue(input.namespaceObject),
  };
  for (const key of Object.keys(libraries)) base[key] = libraries[key];

  const budget = new EvaluationBudget(DEFAULT_EVALUATION_LIMITS, context.deadline);
  const run = new SpecRun(programs.spec, roundActivation(base), new CelMeter(budget), new AccessReviews(0), budget);
  let properties: Record<string, string> = {};
  try {
    // Exceptions first, on the request alone. One that allows no images or values exempts the
    // trigger (a later broken one cannot undo that); the others only fill `exceptions`.
    const matched: CompiledCelPolicyException[] = [];
    let exempt = false;
    for (const exception of applicableExceptions(compiled, context)) {
      const decision = await conditionsHold(run, exception.matchConditions, base);
      if ('error' in decision) {
        if (exempt) continue;
        return result('error', `failed to evaluate policy: ${decision.error}`);
      }
      if (!decision.holds) continue;
      matched.push(exception);
      if (exception.images.length === 0 && exception.allowedValues.length === 0) exempt = true;
    }
    if (exempt) {
      // As Kyverno: the exception's reportResult (skip unless pass) answers, naming every exception.
      const rule: RuleResponse = { ...exceptionRule(matched), type: 'Generation' };
      return result(rule.status as 'pass' | 'skip', rule.message, [], rule.exceptions ?? [], rule);
    }
    run.activation.exceptions = toCel({
      allowedImages: matched.flatMap((exception) => exception.images),
      allowedValues: matched.flatMap((exception) => exception.allowedValues),
    } as unknown as JsonObject);
    const conditions = await conditionsHold(run, programs.spec.matchConditions, base);
    if ('error' in conditions) return result('error', `failed to evaluate policy: ${conditions.error}`);
    if (!conditions.holds) return result('pass', 'policy evaluated successfully');

    for (const generation of programs.generations) {
      const failure = await generate(run, generation, recorder, compiled.namespace);
      if (failure !== undefined) return result('error', `failed to evaluate policy: ${failure}`);
    }
    if (programs.spec.auditAnnotations.length > 0) {
      const annotations = await auditAnnotations(run, programs.spec);
      if ('error' in annotations) return result('error', `failed to evaluate policy: ${annotations.error}`);
      properties = annotations.values;
    }
  } catch (error) {
    if (error instanceof CelLimitExceeded || error instanceof EvaluationDeadlineExceeded) {
      return result('error', `failed to evaluate policy: ${errorMessage(error)}`);
    }
    throw error;
  }
  const passed = result('pass', 'policy evaluated successfully', recorder.objects);
  if (Object.keys(properties).length > 0) passed.rule.properties = { ...properties };
  return passed;
}

/** Runs one generate entry; the cause of its failure, or undefined. */
async function generate(
  run: SpecRun,
  generation: CompiledGeneration,
  recorder: DownstreamRecorder,
  policyNamespace: string | undefined,
): Promise<string | undefined> {
  if ('program' in generation) {
    const outcome = await run.evaluate(generation.program, generation.reads);
    return 'error' in outcome ? describeCelError(outcome.error) : undefined;
  }
  const rendered: JsonObject[] = [];
  for (const [i, document] of generation.template.documents.entries()) {
    let value: JsonValue;
    try {
      value = await render(run, document, generation.reads);
    } catch (error) {
      return `failed to render generation template: document ${i + 1}: ${errorMessage(error)}`;
    }
    if (!isObject(value)) {
      return `failed to render generation template: document ${i + 1}: expected a mapping describing a resource`;
    }
    rendered.push(value);
  }
  // Each object goes to the namespace it names; a namespaced policy's default to its own, and
  // naming another is refused (as generator.Apply refuses it).
  const byNamespace = new Map<string, JsonObject[]>();
  for (const object of rendered) {
    const metadata = isObject(object.metadata) ? object.metadata : {};
    let namespace = typeof metadata.namespace === 'string' ? metadata.namespace : '';
    if (policyNamespace !== undefined) {
      if (namespace === '') namespace = policyNamespace;
      else if (namespace !== policyNamespace) {
        return `cross-namespace generation denied: a policy in namespace "${policyNamespace}" cannot generate resources into namespace "${namespace}"`;
      }
    }
    byNamespace.set(namespace, [...(byNamespace.get(namespace) ?? []), object]);
  }
  for (const [namespace, objects] of byNamespace) {
    try {
      recorder.apply(namespace, objects);
    } catch (error) {
      return `failed to generate resources: ${errorMessage(error)}`;
    }
  }
  return undefined;
}

/** Renders one template node: literals copied, placeholders evaluated (spliced, or written into the string). */
async function render(run: SpecRun, node: TemplateNode, reads: readonly string[]): Promise<JsonValue> {
  if ('literal' in node) return structuredClone(node.literal);
  if ('splice' in node) return placeholder(run, node.splice, reads);
  if ('parts' in node) {
    let text = '';
    for (const part of node.parts) {
      if (typeof part === 'string') {
        text += part;
        continue;
      }
      const value = await placeholder(run, part, reads);
      if (value !== null && typeof value === 'object') {
        throw new Error(
          `placeholder ${JSON.stringify(part.source)} embedded in a string must evaluate to a scalar; use a whole-value placeholder for structured results`,
        );
      }
      text += value === null ? '' : String(value);
    }
    return text;
  }
  if ('list' in node) {
    const out: JsonValue[] = [];
    for (const item of node.list) out.push(await render(run, item, reads));
    return out;
  }
  const out: JsonObject = {};
  for (const [key, item] of node.map) {
    const value = await render(run, item, reads);
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

async function placeholder(run: SpecRun, program: CelProgram, reads: readonly string[]): Promise<JsonValue> {
  const outcome: Outcome = await run.evaluate(program, reads);
  if ('error' in outcome) {
    throw new Error(
      `failed to evaluate placeholder ${JSON.stringify(program.source)}: ${describeCelError(outcome.error)}`,
    );
  }
  return celToJson(outcome.value, `placeholder ${program.source}`);
}

function resultFor(compiled: CompiledGeneratingPolicy, trigger: JsonObject) {
  return (
    status: GeneratingPolicyResult['status'],
    message: string,
    downstream: GeneratingPolicyResult['downstream'] = [],
    exceptions?: readonly string[],
    given?: RuleResponse,
  ): GeneratingPolicyResult => {
    const rule: RuleResponse = given ?? { name: compiled.name, type: 'Generation', status, message };
    if (downstream.length > 0) rule.generatedResources = [...downstream];
    return {
      policy: {
        name: compiled.name,
        kind: compiled.kind,
        ...(compiled.namespace !== undefined ? { namespace: compiled.namespace } : {}),
      },
      trigger,
      status,
      message,
      downstream,
      ...(exceptions ? { exceptions } : {}),
      rule,
    };
  };
}
