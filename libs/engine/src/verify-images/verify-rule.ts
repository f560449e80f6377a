import { wildcardMatch, type JsonValue } from '@edict/foundation';
import { compileJmesPath } from '@edict/jmespath';
import type { ContextLoaders, ResourceLoader } from '../core/loaders';
import { ruleError, ruleResponse } from '../core/responses';
import type { RuleResponse } from '../core/types';
import { extractImages, type ContainerImageInfo, type ImageExtractorConfig, type ImageInfos } from '../images';
import type { JsonPatchOperation } from '../mutate/admission-patch';
import type { Rule } from '../policy/types';
import type { RuleRun } from '../validate/rule-run';
import { isSubstitutionConstant, substituteVariables } from '../variables';
import type { VerifiedImages } from './annotation';
import { verifyEntry } from './image-verifier';
import { readImageVerification, type ImageVerification } from './spec';

/** True for a rule with `verifyImages` entries (Kyverno's HasVerifyImages). */
export function hasVerifyImages(rule: Rule): boolean {
  return Array.isArray(rule.verifyImages) && rule.verifyImages.length > 0;
}

/** Kyverno's HasVerifyImageChecks: the rule also runs on the validate path (`verifyDigest` or `required`). */
export function hasVerifyImageChecks(rule: Rule): boolean {
  return hasVerifyImages(rule) && verifications(rule).some((v) => v.verifyDigest || v.required);
}

/** The failure action a verifyImages rule asks for itself (`verifyImages[].failureAction`), if any. */
export function verifyImagesFailureAction(rule: Rule): string | undefined {
  for (const entry of rule.verifyImages ?? []) {
    const action = (entry as { failureAction?: unknown } | null)?.failureAction;
    if (typeof action === 'string') return action;
  }
  return undefined;
}

/** A compiled rule's entries, read once per rule object (rules are not changed once compiled). */
const readEntries = new WeakMap<Rule, readonly ImageVerification[]>();

export function verifications(rule: Rule): readonly ImageVerification[] {
  let entries = readEntries.get(rule);
  if (!entries) {
    entries = (rule.verifyImages ?? []).map(readImageVerification);
    readEntries.set(rule, entries);
  }
  return entries;
}

export interface ImageRuleDependencies {
  readonly loaders?: ContextLoaders;
  readonly resources?: ResourceLoader;
  readonly policyName: string;
  /** Set for a namespaced Policy. */
  readonly policyNamespace?: string;
  readonly verified: VerifiedImages;
}

export interface ImageRuleOutcome {
  readonly responses: RuleResponse[];
  readonly patches: JsonPatchOperation[];
}

const TYPE = 'ImageVerify';

/**
 * Kyverno's mutate-image handler: the rule's images that match an entry's `imageReferences` are
 * verified for each entry (variables substituted first, attestation conditions left for each
 * statement), giving one response per image and the digest patches. No matching image, no response.
 */
export async function verifyImagesRule(run: RuleRun, deps: ImageRuleDependencies): Promise<ImageRuleOutcome> {
  const { rule, ctx } = run;
  let images: ContainerImageInfo[];
  try {
    images = matchingImages(run);
  } catch (error) {
    return { responses: [ruleError(rule, TYPE, 'failed to instantiate handler', error)], patches: [] };
  }
  if (images.length === 0) return { responses: [], patches: [] };
  const access = deps.loaders?.imageVerification;
  if (!access) {
    return {
      responses: [
        ruleResponse(
          rule,
          TYPE,
          'error',
          'image verification is not configured: the images of this resource were not verified',
        ),
      ],
      patches: [],
    };
  }
  let entries: readonly ImageVerification[];
  try {
    entries = substituted(rule, ctx);
  } catch (error) {
    return { responses: [ruleError(rule, TYPE, 'failed to substitute variables', error)], patches: [] };
  }
  const responses: RuleResponse[] = [];
  const patches: JsonPatchOperation[] = [];
  const remaining = run.context.scope?.deadline?.remainingMs?.();
  for (const verification of entries) {
    let oci;
    try {
      const credentials = verification.imageRegistryCredentials;
      oci = access.oci({
        secrets: credentials?.secrets,
        providers: credentials?.providers,
        allowInsecure: credentials?.allowInsecureRegistry === true,
        namespace: run.resource.metadata?.namespace ?? deps.policyNamespace,
      });
    } catch (error) {
      return { responses: [ruleError(rule, TYPE, 'failed to fetch secrets', error)], patches: [] };
    }
    const outcome = await verifyEntry(
      {
        rule,
        policyName: deps.policyName,
        ctx,
        request: run.request,
        oci,
        cache: access.cache,
        trustedRoot: access.trustedRoot?.bind(access),
        secrets: { resources: deps.resources, policyNamespace: deps.policyNamespace },
        deadline: remaining === undefined ? undefined : Date.now() + remaining,
        entries,
        verified: deps.verified,
      },
      verification,
      images,
    );
    responses.push(...outcome.responses);
    patches.push(...outcome.patches);
  }
  return { responses, patches };
}

/**
 * Kyverno's ExtractMatchingImages: the request's images (or the rule's `imageExtractors`' images)
 * that match any entry's `imageReferences`, each once per entry that matches it.
 */
export function matchingImages(run: RuleRun): ContainerImageInfo[] {
  const infos = imagesOf(run);
  const entries = verifications(run.rule);
  const matched: ContainerImageInfo[] = [];
  for (const group of Object.values(infos)) {
    for (const info of Object.values(group)) {
      for (const entry of entries) {
        if (entry.imageReferences.some((pattern) => wildcardMatch(pattern, info.reference))) matched.push(info);
      }
    }
  }
  return matched;
}

function imagesOf(run: RuleRun): ImageInfos {
  const extractors = run.rule.imageExtractors as Record<string, ImageExtractorConfig[]> | undefined;
  if (extractors) {
    return extractImages(run.resource, {
      extractors,
      applyJmesPath: (expression, value) => compileJmesPath(expression).search(value, run.ctx.budget),
    });
  }
  const images = (() => {
    try {
      return run.ctx.query('images');
    } catch {
      return undefined;
    }
  })();
  return (images && typeof images === 'object' && !Array.isArray(images) ? images : {}) as unknown as ImageInfos;
}

/** Whether a rule's entries hold no variable, found once per rule object. */
const constantRules = new WeakMap<Rule, boolean>();

/**
 * The entries with variables substituted, attestation conditions and the `validate` block kept as
 * written: they read what verification binds (each statement's predicate, named attestations).
 */
function substituted(rule: Rule, ctx: RuleRun['ctx']): readonly ImageVerification[] {
  // An entry without variables reads the same in every review: the entries read once stand for it,
  // and keep their identity, so the verifiers built from them are built once too.
  let constant = constantRules.get(rule);
  if (constant === undefined) {
    constant = (rule.verifyImages ?? []).every((raw) => isSubstitutionConstant(raw));
    constantRules.set(rule, constant);
  }
  if (constant) return verifications(rule);
  return (rule.verifyImages ?? []).map((raw) => {
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return readImageVerification(raw);
    const { validate, attestations, ...rest } = raw as Record<string, JsonValue>;
    const list = Array.isArray(attestations) ? attestations : undefined;
    const conditions = (list ?? []).map((a) =>
      a && typeof a === 'object' && !Array.isArray(a) ? (a as Record<string, JsonValue>)['conditions'] : undefined,
    );
    const withoutLate: Record<string, JsonValue> = { ...rest };
    if (list) {
      withoutLate['attestations'] = list.map((a) => {
        if (!a || typeof a !== 'object' || Array.isArray(a)) return a;
        const { conditions: _conditions, ...other } = a as Record<string, JsonValue>;
        return other;
      });
    }
    const result = substituteVariables(withoutLate, ctx) as Record<string, JsonValue>;
    if (list && Array.isArray(result['attestations'])) {
      result['attestations'] = result['attestations'].map((a, i) =>
        a && typeof a === 'object' && !Array.isArray(a) && conditions[i] !== undefined
          ? { ...a, conditions: conditions[i]! }
          : a,
      );
    }
    if (validate !== undefined) result['validate'] = validate;
    return readImageVerification(result);
  });
}
