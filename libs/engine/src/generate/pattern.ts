import {
  isObject,
  type JsonObject,
  type JsonValue,
  type KubeObject,
  matchesLabelSelector,
  errorMessage,
  type LabelSelector,
} from '@edict/foundation';
import type { ResourceLoader } from '../core/loaders';
import { checkNamespacedKind, checkNamespacedObject, checkOwnNamespace } from '../core/namespaced-scope';
import type { CloneList, Generation } from '../policy/types';
import { substituteVariables, type EvaluationContext } from '../variables';
import { objectFromClone, objectFromData, type Provenance } from './build-object';
import { formatRef, isObjectAt, parseKindEntry } from './resource-ref';
import type { GeneratedFrom, NotGenerated, ResourceRef } from './types';

/** One generate pattern: the rule's own block or one foreach block. */
export type GeneratePattern = Omit<
  Generation,
  'foreach' | 'synchronize' | 'orphanDownstreamOnPolicyDelete' | 'generateExisting'
>;

/** A failure that Kyverno's background controller reports as an error for the rule. */
export class GenerationFailure extends Error {}

/** What generating collects; shared by all patterns of a rule so results keep their order. */
export interface GenerationOutput {
  objects: KubeObject[];
  sources: GeneratedFrom[];
  notGenerated: NotGenerated[];
}

export interface PatternScope {
  ctx: EvaluationContext;
  resources: ResourceLoader | undefined;
  provenance: Provenance;
  /** Set for a namespaced Policy: everything it clones and generates stays in this namespace. */
  policyNamespace?: string;
}

type Outcome = { object: KubeObject; from: GeneratedFrom } | { skipped: string } | { failed: string };

/**
 * Generates the objects of one pattern into `output`: variables are substituted in the whole pattern,
 * then `clone` (when it names a source), `cloneList` (when it lists kinds) or `data` decides the objects.
 * As in Kyverno, the first target that fails ends this pattern without failing the rule; the targets
 * before it are kept.
 */
export async function generatePattern(
  pattern: GeneratePattern,
  path: string,
  scope: PatternScope,
  output: GenerationOutput,
): Promise<void> {
  const substituted = substitutePattern(pattern, path, scope.ctx);
  const target = targetOf(substituted, path);
  const clone = isObject(substituted.clone) ? substituted.clone : {};
  const cloneList = isObject(substituted.cloneList) ? (substituted.cloneList as CloneList) : {};
  const first = output.objects.length;
  if (scope.policyNamespace !== undefined) await checkPatternScope(target, clone, cloneList, path, scope);

  if (typeof clone.name === 'string' && clone.name !== '') {
    const source = {
      apiVersion: target.apiVersion,
      kind: target.kind,
      namespace: stringOr(clone.namespace),
      name: clone.name,
    };
    record(output, target, await cloneOne(source, target, path, scope), scope);
  } else if (Array.isArray(cloneList.kinds) && cloneList.kinds.length > 0) {
    await cloneEach(cloneList, target.namespace, scope, output);
  } else {
    record(output, target, fromData(substituted.data, target, path, scope), scope);
  }
  // The objects as built: a data block's own `kind` wins over the rule's, so check what was produced.
  if (scope.policyNamespace === undefined) return;
  for (const object of output.objects.slice(first)) {
    await checkNamespacedObject(scope.resources, scope.policyNamespace, `${path}: generated`, object);
  }
}

/**
 * A namespaced Policy's pattern, after substitution and before any source is read: the target and
 * every clone source namespaced and in the policy's namespace (as Kyverno's generator checks).
 */
async function checkPatternScope(
  target: ResourceRef,
  clone: JsonObject,
  cloneList: CloneList,
  path: string,
  scope: PatternScope,
): Promise<void> {
  const own = scope.policyNamespace!;
  checkOwnNamespace(own, `${path}.namespace`, target.namespace);
  if (typeof clone.name === 'string' && clone.name !== '') {
    checkOwnNamespace(own, `${path}.clone.namespace`, stringOr(clone.namespace));
  } else if (Array.isArray(cloneList.kinds) && cloneList.kinds.length > 0) {
    checkOwnNamespace(own, `${path}.cloneList.namespace`, cloneList.namespace ?? '');
    for (const [index, entry] of cloneList.kinds.entries()) {
      const { apiVersion, kind } = parseKindEntry(typeof entry === 'string' ? entry : '');
      await checkNamespacedKind(scope.resources, own, `${path}.cloneList.kinds[${index}]`, apiVersion, kind);
    }
    return;
  }
  await checkNamespacedKind(scope.resources, own, `${path}.kind`, target.apiVersion, target.kind);
}

function substitutePattern(pattern: GeneratePattern, path: string, ctx: EvaluationContext): JsonObject {
  const document: JsonObject = {};
  for (const key of ['apiVersion', 'kind', 'name', 'namespace', 'data', 'clone', 'cloneList'] as const) {
    const value = pattern[key] as JsonValue | undefined;
    if (value !== undefined) document[key] = value;
  }
  try {
    return substituteVariables(document, ctx) as JsonObject;
  } catch (error) {
    throw new GenerationFailure(`variable substitution failed in ${path}: ${errorMessage(error)}`);
  }
}

function targetOf(substituted: JsonObject, path: string): ResourceRef {
  const field = (name: 'apiVersion' | 'kind' | 'name' | 'namespace'): string => {
    const value = substituted[name];
    if (value === undefined || value === null) return '';
    if (typeof value !== 'string') {
      throw new GenerationFailure(
        `${path}.${name}: expected a string after variable substitution, got ${describe(value)}`,
      );
    }
    return value;
  };
  return { apiVersion: field('apiVersion'), kind: field('kind'), namespace: field('namespace'), name: field('name') };
}

/** Without data (nor clone), Kyverno still creates the target: an object with only its identity and labels. */
function fromData(data: JsonValue | undefined, target: ResourceRef, path: string, scope: PatternScope): Outcome {
  if (data === undefined || data === null) data = {};
  if (!isObject(data)) return { failed: `${path}.data: expected an object, got ${describe(data)}` };
  requireName(target, path);
  // Checked before it is copied: substitution can share one large value many times.
  scope.ctx.budget.checkDocument(data, `${path}.data after substitution`);
  return { object: objectFromData(data, target, scope.provenance), from: { type: 'data' } };
}

async function cloneOne(source: ResourceRef, target: ResourceRef, path: string, scope: PatternScope): Promise<Outcome> {
  if (source.namespace === target.namespace && source.name === target.name)
    return { skipped: 'the clone source is the target itself' };
  let object: KubeObject | undefined;
  try {
    object = await scope.resources?.get(source.apiVersion, source.kind, source.namespace || undefined, source.name);
  } catch (error) {
    return { failed: `failed to get the clone source ${formatRef(source)}: ${errorMessage(error)}` };
  }
  // The trigger exists by the time Kyverno's background controller runs, even when no loader has it yet.
  if (!object && isObjectAt(scope.provenance.trigger, source)) object = scope.provenance.trigger;
  if (!object) return { failed: `source resource ${formatRef(source)} not found` };
  requireName(target, path);
  return { object: objectFromClone(object, target, scope.provenance), from: { type: 'clone', source } };
}

/** The API server rejects an object without a name, and Kyverno's controller then fails the rule. */
function requireName(target: ResourceRef, path: string): void {
  if (target.name === '')
    throw new GenerationFailure(`${path}.name: the target name is empty after variable substitution`);
}

/** One copy per object of each listed kind in the source namespace that the selector matches, named as its source. */
async function cloneEach(
  cloneList: CloneList,
  targetNamespace: string,
  scope: PatternScope,
  output: GenerationOutput,
): Promise<void> {
  const sourceNamespace = cloneList.namespace ?? '';
  for (const entry of cloneList.kinds ?? []) {
    const { apiVersion, kind } = parseKindEntry(entry);
    let sources: KubeObject[];
    try {
      sources =
        (await scope.resources?.list(
          apiVersion,
          kind,
          sourceNamespace || undefined,
          selectorJson(cloneList.selector),
        )) ?? [];
    } catch (error) {
      const target = { apiVersion, kind, namespace: targetNamespace, name: '' };
      record(
        output,
        target,
        {
          failed: `failed to list source resource for cloneList ${entry} in ${sourceNamespace || 'the cluster'}: ${errorMessage(error)}`,
        },
        scope,
      );
      return;
    }
    for (const object of sources) {
      if (!listed(object, kind, sourceNamespace, cloneList.selector)) continue;
      const source = {
        apiVersion: object.apiVersion ?? apiVersion,
        kind: object.kind ?? kind,
        namespace: object.metadata?.namespace ?? '',
        name: object.metadata?.name ?? '',
      };
      const target = { ...source, namespace: targetNamespace };
      const outcome: Outcome =
        source.namespace === targetNamespace
          ? { skipped: 'the clone source is in the target namespace' }
          : { object: objectFromClone(object, target, scope.provenance), from: { type: 'clone', source } };
      if (!record(output, target, outcome, scope)) return;
    }
  }
}

/** Guards against loaders that ignore the namespace or selector (the CLI's mocks may). */
function listed(object: KubeObject, kind: string, namespace: string, selector: LabelSelector | undefined): boolean {
  if (object.kind !== kind) return false;
  if (namespace !== '' && object.metadata?.namespace !== namespace) return false;
  return !selector || matchesLabelSelector(selector, object.metadata?.labels);
}

/**
 * Adds an outcome to the output; false when it failed and the pattern must stop. A generated object
 * is charged to the rule's budget (one operation, its size, the rule's objects together).
 */
function record(output: GenerationOutput, target: ResourceRef, outcome: Outcome, scope: PatternScope): boolean {
  if ('object' in outcome) {
    scope.ctx.budget.chargeGenerated(outcome.object, `the generated object ${formatRef(target)}`);
    output.objects.push(outcome.object);
    output.sources.push(outcome.from);
    return true;
  }
  const failed = !('skipped' in outcome);
  output.notGenerated.push({ target, reason: failed ? outcome.failed : outcome.skipped, failed });
  return 'skipped' in outcome;
}

function selectorJson(selector: LabelSelector | undefined): JsonObject | undefined {
  return selector as unknown as JsonObject | undefined;
}

function stringOr(value: JsonValue | undefined): string {
  return typeof value === 'string' ? value : '';
}

function describe(value: JsonValue): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}
