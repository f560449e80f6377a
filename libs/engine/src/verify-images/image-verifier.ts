import {
  errorMessage,
  isObject,
  wildcardMatch,
  type ImageInfo,
  type JsonObject,
  type JsonValue,
  type KubeObject,
} from '@edict/foundation';
import {
  ImageVerificationError,
  parseImageRef,
  verifyImageAttestations,
  verifyImageSignatures,
  type OciReader,
  type VerificationCache,
  type VerifyOptions,
} from '@edict/image-verify';
import { checkConditions } from '../core/conditions';
import { ruleError, ruleResponse } from '../core/responses';
import type { ResourceRequest, RuleResponse } from '../core/types';
import type { JsonPatchOperation } from '../mutate/admission-patch';
import type { Conditions, Rule } from '../policy/types';
import { substituteVariables, type EvaluationContext } from '../variables';
import { imageStatusOf, verifiedAnnotationChanged, IMAGE_VERIFY_ANNOTATION, type VerifiedImages } from './annotation';
import type { ContainerImageInfo } from '../images';
import { readAttestorSet, requiredCount, type Attestation, type AttestorSet, type ImageVerification } from './spec';
import {
  entryVerifier,
  UnsupportedAttestorError,
  verifierFor,
  withTrustedRoot,
  type BuiltVerifier,
  type SecretAccess,
  type TrustedRootLoader,
} from './verifier-spec';

/** What one verifyImages entry is verified with. */
export interface VerifierContext {
  readonly rule: Rule;
  readonly policyName: string;
  readonly ctx: EvaluationContext;
  readonly request: ResourceRequest;
  readonly oci: OciReader;
  readonly cache?: VerificationCache;
  readonly secrets: SecretAccess;
  /** The controller's Sigstore trusted root, for entries without roots or log keys of their own. */
  readonly trustedRoot?: TrustedRootLoader;
  readonly deadline?: number;
  /** The rule's verifyImages entries (after substitution), for the `validate` checks Kyverno runs after attestations. */
  readonly entries: readonly ImageVerification[];
  /** Images recorded for the annotation (Kyverno's ImageVerificationMetadata). */
  readonly verified: VerifiedImages;
}

export interface EntryOutcome {
  readonly responses: RuleResponse[];
  readonly patches: JsonPatchOperation[];
}

/** An attestor entry's outcome: `error` when it could not be verified at all (registry down, config Edict lacks). */
interface Failure {
  readonly message: string;
  readonly error: boolean;
}

/** A rule, its type and nothing more: the image verification responses Kyverno names ImageVerify. */
const TYPE = 'ImageVerify';

/**
 * Kyverno's ImageVerifier.Verify for one verifyImages entry over the rule's matching images: each
 * changed image is verified (attestors, then attestations, then `validate`), its digest patched in
 * when `mutateDigest` asks, and its outcome recorded for the `kyverno.io/verify-images` annotation.
 */
export async function verifyEntry(
  vc: VerifierContext,
  verification: ImageVerification,
  images: readonly ContainerImageInfo[],
): Promise<EntryOutcome> {
  const responses: RuleResponse[] = [];
  const patches: JsonPatchOperation[] = [];
  const { rule, request } = vc;
  for (const info of images) {
    let image = info.reference;
    if (verifiedAnnotationChanged(request.resource, request.oldResource)) {
      responses.push(ruleResponse(rule, TYPE, 'fail', `${IMAGE_VERIFY_ANNOTATION} annotation cannot be changed`));
      continue;
    }
    if (unchanged(request, info.jsonPointer)) {
      vc.verified.add(image, 'pass');
      continue;
    }
    let { response, digest } = await verifyImage(vc, verification, info);
    if (verification.mutateDigest && !info.digest) {
      try {
        digest ||= await resolveDigest(vc.oci, info);
        patches.push({ op: 'replace', path: info.jsonPointer, value: `${info.reference}@${digest}` });
        response ??= ruleResponse(rule, TYPE, 'pass', 'mutated image digest');
        image = `${repositoryOf(info)}@${digest}`;
      } catch (error) {
        responses.push(ruleError(rule, TYPE, 'failed to update digest', error));
      }
    }
    if (response) {
      if (verification.attestors.length > 0 || verification.attestations.length > 0) {
        vc.verified.add(image, imageStatusOf(response.status));
      }
      responses.push(response);
    }
  }
  return { responses, patches };
}

async function verifyImage(
  vc: VerifierContext,
  verification: ImageVerification,
  info: ContainerImageInfo,
): Promise<{ response?: RuleResponse; digest?: string }> {
  if (verification.attestors.length === 0 && verification.attestations.length === 0) return {};
  const { rule, ctx } = vc;
  const image = info.reference;
  ctx.add('image', imageInfoJson(info));
  const skipMessage = `skipping image reference image ${image}, policy ${vc.policyName} ruleName ${rule.name}`;
  if (!matchesAny(verification.imageReferences, image)) {
    return { response: ruleResponse(rule, TYPE, 'skip', skipMessage) };
  }
  if (matchesAny(verification.skipImageReferences, image)) {
    vc.verified.add(image, 'skip');
    return { response: ruleResponse(rule, TYPE, 'skip', skipMessage) };
  }
  let current: ImageInfo = info;
  let digest: string | undefined;
  if (verification.attestors.length > 0) {
    for (let i = 0; i < verification.attestors.length; i++) {
      const outcome = await verifyAttestorSet(vc, verification.attestors[i]!, verification, image, `.attestors[${i}]`);
      if ('failure' in outcome) return { response: failedImage(rule, image, outcome.failure) };
      digest = outcome.digest;
    }
    if (verification.attestations.length === 0) {
      return { response: ruleResponse(rule, TYPE, 'pass', `verified image signatures for ${image}`), digest };
    }
    if (!current.digest && digest) current = withDigest(current, digest);
  }
  return verifyAttestations(vc, verification, current);
}

/** Kyverno's handleRegistryErrors: what could not be checked is an error, what did not verify a failure. */
function failedImage(rule: Rule, image: string, failure: Failure): RuleResponse {
  if (failure.error) return ruleResponse(rule, TYPE, 'error', `failed to verify image ${image}: ${failure.message}`);
  return ruleResponse(rule, TYPE, 'fail', `failed to verify image ${image}: ${failure.message}`);
}

/**
 * Kyverno's verifyAttestorSet: entries (multi-key PEMs expanded) are tried in order until `count`
 * of them verify; nested attestor sets count as one entry. Failures are joined as Go's multierr does.
 */
async function verifyAttestorSet(
  vc: VerifierContext,
  set: AttestorSet,
  verification: ImageVerification,
  image: string,
  path: string,
): Promise<{ digest: string } | { failure: Failure }> {
  const expanded = expandStaticKeys(set);
  const required = requiredCount(expanded);
  const failures: Failure[] = [];
  let verifiedCount = 0;
  for (let i = 0; i < expanded.entries.length; i++) {
    const entry = expanded.entries[i]!;
    let entryPath = `${path}.entries[${i}]`;
    let outcome: { digest: string } | { failure: Failure };
    if (entry.attestor !== undefined) {
      entryPath += '.attestor';
      outcome = isObject(entry.attestor)
        ? await verifyAttestorSet(vc, readAttestorSet(entry.attestor), verification, image, entryPath)
        : { failure: { message: `failed to unmarshal nested attestor ${entryPath}`, error: false } };
    } else {
      outcome = await verifySignatureEntry(vc, entry, verification, image, entryPath);
    }
    if ('digest' in outcome) {
      verifiedCount++;
      if (verifiedCount >= required) return outcome;
    } else {
      failures.push(outcome.failure);
    }
  }
  if (failures.length === 0) {
    failures.push({ message: `verifiedCount: ${verifiedCount}, requiredCount: ${required}`, error: false });
  }
  return { failure: combine(failures) };
}

async function verifySignatureEntry(
  vc: VerifierContext,
  entry: AttestorSet['entries'][number],
  verification: ImageVerification,
  image: string,
  entryPath: string,
): Promise<{ digest: string } | { failure: Failure }> {
  let subPath = '';
  try {
    const { spec, path } = await verifierOf(entry, verification, false, vc);
    subPath = path;
    const result = await verifyImageSignatures(vc.oci, image, spec, verifyOptions(vc, verification));
    if (result.verified) return { digest: result.digest };
    return {
      failure: { message: `${entryPath}${subPath}: ${result.reason ?? 'signature not verified'}`, error: false },
    };
  } catch (error) {
    return { failure: { message: `${entryPath}${subPath}: ${errorMessage(error)}`, error: couldNotVerify(error) } };
  }
}

/**
 * Verifiers built once per attestor entry and entry of a compiled rule (both kept
 * while the rule lives): the cache key of a verified image is then found without serialising the
 * trust material again. A key read from a Secret is read each time (the Secret may change).
 */
/** Per entry, per attestor: the verifier for signatures [0] and for attestations [1]. */
const builtVerifiers = new WeakMap<ImageVerification, WeakMap<object, [BuiltVerifier?, BuiltVerifier?]>>();

async function verifierOf(
  attestor: AttestorSet['entries'][number],
  verification: ImageVerification,
  forAttestation: boolean,
  vc: Pick<VerifierContext, 'secrets' | 'trustedRoot'>,
): Promise<BuiltVerifier> {
  if (attestor.keys?.secret) return verifierFor(attestor, verification, forAttestation, vc.secrets, vc.trustedRoot);
  let byAttestor = builtVerifiers.get(verification);
  if (!byAttestor) builtVerifiers.set(verification, (byAttestor = new WeakMap()));
  let pair = byAttestor.get(attestor);
  if (!pair) byAttestor.set(attestor, (pair = [undefined, undefined]));
  const index = forAttestation ? 1 : 0;
  const built = (pair[index] ??= await entryVerifier(attestor, verification, forAttestation, vc.secrets));
  return withTrustedRoot(built, vc.trustedRoot);
}

/**
 * Kyverno's verifyAttestations: for each attestation, its attestor sets (an implicit empty entry
 * when none) must each reach their count of entries whose statements of the type pass the
 * conditions; then the rule's `validate` blocks decide.
 */
async function verifyAttestations(
  vc: VerifierContext,
  verification: ImageVerification,
  info: ImageInfo,
): Promise<{ response: RuleResponse; digest?: string }> {
  const { rule, ctx } = vc;
  let current = info;
  for (let i = 0; i < verification.attestations.length; i++) {
    const attestation = verification.attestations[i]!;
    const path = `.attestations[${i}]`;
    if (!attestation.type) return { response: ruleResponse(rule, TYPE, 'fail', `${path}: missing type`) };
    const sets: readonly AttestorSet[] = attestation.attestors.length > 0 ? attestation.attestors : [{ entries: [{}] }];
    const failures: Failure[] = [];
    for (let j = 0; j < sets.length; j++) {
      const set = sets[j]!;
      const required = requiredCount(set);
      let verifiedCount = 0;
      for (const entry of set.entries) {
        // Kyverno names the entry by the attestation's index here; kept so messages match.
        const entryPath = `${path}.attestors[${j}].entries[${i}]`;
        let subPath = '';
        try {
          const { spec, path: specPath } = await verifierOf(entry, verification, true, vc);
          subPath = specPath;
          const result = await verifyImageAttestations(
            vc.oci,
            current.reference,
            attestation.type,
            spec,
            verifyOptions(vc, verification),
          );
          if (!result.verified) {
            failures.push({ message: result.reason ?? 'attestations not verified', error: false });
            continue;
          }
          if (attestation.name) {
            const predicate = result.statements.map((s) => s['predicate']).find(isObject);
            if (!predicate) {
              failures.push({ message: 'predicate not found in any statement', error: false });
              continue;
            }
            ctx.add(attestation.name, predicate);
          }
          if (!current.digest && result.digest) current = withDigest(current, result.digest);
          const problem = checkStatements(ctx, result.statements, attestation, current.reference);
          if (problem) {
            failures.push({ message: `${entryPath}${subPath}: ${problem}`, error: false });
            continue;
          }
          verifiedCount++;
          if (verifiedCount >= required) break;
        } catch (error) {
          failures.push({ message: `${entryPath}${subPath}: ${errorMessage(error)}`, error: couldNotVerify(error) });
        }
      }
      if (verifiedCount < required) {
        const combined = failures.length > 0 ? combine(failures) : undefined;
        const message = `image attestations verification failed, verifiedCount: ${verifiedCount}, requiredCount: ${required}, error: ${combined?.message ?? 'attestations verification failed'}`;
        return { response: ruleResponse(rule, TYPE, combined?.error ? 'error' : 'fail', message) };
      }
    }
  }
  const validations = vc.entries.filter((entry) => entry.validate?.deny);
  if (validations.length > 0) {
    for (const entry of validations) {
      const denied = deniedBy(ctx, entry);
      if (denied !== undefined) {
        return {
          response: ruleResponse(rule, TYPE, 'fail', `validation in verifyImages failed: ${denied}`),
          digest: current.digest,
        };
      }
    }
    return {
      response: ruleResponse(rule, TYPE, 'pass', `verifyImages validation is passed in ${rule.name} rule`),
      digest: current.digest,
    };
  }
  return {
    response: ruleResponse(rule, TYPE, 'pass', `verified image attestations for ${current.reference}`),
    digest: current.digest,
  };
}

/**
 * Kyverno's verifyAttestation: the statements of the attestation's type must exist and each pass
 * the conditions, evaluated with the statement's predicate merged into the context.
 */
function checkStatements(
  ctx: EvaluationContext,
  statements: readonly JsonObject[],
  attestation: Attestation,
  image: string,
): string | undefined {
  const matching = statements.filter((s) => (s['predicateType'] ?? s['type']) === attestation.type);
  if (matching.length === 0) return `attestions not found for predicate type ${attestation.type}`;
  for (const statement of matching) {
    if (!attestation.conditions || attestation.conditions.length === 0) continue;
    const predicate = statement['predicate'];
    if (!isObject(predicate)) return `failed to check attestations: failed to extract predicate from statement`;
    ctx.checkpoint();
    try {
      for (const [key, value] of Object.entries(predicate)) ctx.add(key, value);
      const failed = failedConditions(ctx, attestation.conditions);
      if (failed !== undefined) {
        return `attestation checks failed for ${image} and predicate ${attestation.type}: ${failed}`;
      }
    } catch (error) {
      return `failed to check attestations: failed to substitute variables in attestation conditions: ${errorMessage(error)}`;
    } finally {
      ctx.restore();
    }
  }
  return undefined;
}

/** Every any/all block must hold; the messages of the ones that do not, or undefined. */
function failedConditions(ctx: EvaluationContext, blocks: readonly Conditions[]): string | undefined {
  const messages: string[] = [];
  let passed = true;
  for (const block of blocks) {
    const result = checkConditions(block, ctx);
    if (!result.passed) {
      passed = false;
      if (result.message) messages.push(result.message);
    }
  }
  return passed ? undefined : messages.join('; ');
}

/** A `validate.deny` that holds: its message (variables substituted), else undefined. */
function deniedBy(ctx: EvaluationContext, entry: ImageVerification): string | undefined {
  const conditions = entry.validate?.deny?.conditions;
  const result = checkConditions(conditions, ctx);
  if (!result.passed) return undefined;
  const parts = [entry.validate?.message, result.message].filter((part): part is string => Boolean(part));
  if (parts.length === 0) return `validation error: imageVerify  failed`;
  const text = parts.join('; ');
  try {
    const substituted = substituteVariables(text, ctx);
    return typeof substituted === 'string'
      ? substituted
      : "the produced message didn't resolve to a string, check your policy definition.";
  } catch {
    return result.message;
  }
}

/** Registry down, trust material unusable, a setting Edict lacks: errors, which the failure policy decides. */
function couldNotVerify(error: unknown): boolean {
  return error instanceof ImageVerificationError || error instanceof UnsupportedAttestorError;
}

function combine(failures: readonly Failure[]): Failure {
  return { message: failures.map((f) => f.message).join('; '), error: failures.some((f) => f.error) };
}

function verifyOptions(vc: VerifierContext, verification: ImageVerification): VerifyOptions {
  return { cache: verification.useCache ? vc.cache : undefined, deadline: vc.deadline };
}

/** Kyverno's ExpandStaticKeys: a `publicKeys` holding several PEM keys becomes one entry per key. */
export function expandStaticKeys(set: AttestorSet): AttestorSet {
  let expanded = expandedSets.get(set);
  if (!expanded) {
    expanded = expandKeys(set);
    expandedSets.set(set, expanded);
  }
  return expanded;
}

/** Sets are read-only once read from the policy: each is expanded once, its entries keep their identity. */
const expandedSets = new WeakMap<AttestorSet, AttestorSet>();

function expandKeys(set: AttestorSet): AttestorSet {
  const entries = set.entries.flatMap((entry) => {
    const pem = entry.keys?.publicKeys;
    if (!pem) return [entry];
    const keys = splitPem(pem);
    if (keys.length <= 1) return [entry];
    return keys.map((key) => ({ ...entry, keys: { ...entry.keys, publicKeys: key } }));
  });
  return { count: set.count, entries };
}

const END_PUBLIC_KEY = '-----END PUBLIC KEY-----';

function splitPem(pem: string): string[] {
  const parts = pem.split(END_PUBLIC_KEY);
  return parts.slice(0, -1).map((part) => part + END_PUBLIC_KEY);
}

function matchesAny(patterns: readonly string[], image: string): boolean {
  return patterns.some((pattern) => wildcardMatch(pattern, image));
}

/** UPDATE with the image at this pointer as it was: Kyverno records it as verified without checking again. */
function unchanged(request: ResourceRequest, pointer: string): boolean {
  if (request.operation !== 'UPDATE' || !request.oldResource || !request.resource) return false;
  const before = atPointer(request.oldResource, pointer);
  return before !== undefined && before === atPointer(request.resource, pointer);
}

function atPointer(object: KubeObject, pointer: string): JsonValue | undefined {
  let node: JsonValue | undefined = object as unknown as JsonValue;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) node = node[Number(key)];
    else if (isObject(node)) node = Object.prototype.hasOwnProperty.call(node, key) ? node[key] : undefined;
    else return undefined;
  }
  return node;
}

async function resolveDigest(oci: OciReader, info: ImageInfo): Promise<string> {
  const ref = parseImageRef(info.reference);
  const descriptor = await oci.resolve(ref.repo, ref.tag ?? 'latest');
  if (!descriptor) throw new Error(`image ${info.reference} not found`);
  return descriptor.digest;
}

function repositoryOf(info: ImageInfo): string {
  return info.registry ? `${info.registry}/${info.path}` : info.path;
}

function withDigest(info: ImageInfo, digest: string): ImageInfo {
  return { ...info, digest, reference: `${repositoryOf(info)}@${digest}` };
}

/** The `image` variable Kyverno adds before verifying (its AddImageInfo). */
function imageInfoJson(info: ImageInfo): JsonObject {
  const out: JsonObject = {
    reference: info.reference,
    referenceWithTag: info.referenceWithTag,
    registry: info.registry ?? '',
    path: info.path,
    name: info.name,
    tag: info.tag ?? '',
    digest: info.digest ?? '',
  };
  return out;
}
