/**
 * The permission check of a cluster GeneratingPolicy at policy admission: its author may not make
 * the background controller write where the author could not (issue 37: "a policy that would
 * generate into a namespace its author cannot write is refused"), and the background controller
 * must be allowed what the policy generates (as classic generate rules are checked). One
 * SubjectAccessReview per verb: get and create, plus update and delete with synchronize (Kyverno's
 * verbs for generate). What the expressions name literally is asked precisely; a namespace decided
 * at generation is asked cluster-wide; a kind decided at generation is asked for every resource of
 * every group for the author (fail closed), and left unasked for the background controller as
 * Kyverno's classic check does (the controller fails at generation instead). A
 * NamespacedGeneratingPolicy needs none of this: it generates into its own namespace only.
 */
import type { AccessReviewer } from '@edict/engine';
import type { AccessReviewSubject } from '@edict/cel';
import type { PolicyFieldError } from '@edict/cel-policies';
import { deepEqual, errorMessage, type JsonValue, type KubeObject } from '@edict/foundation';
import { generateTargets, type GenerateTarget } from './generate-targets';

/** Maps a kind to the resource an access review names (undefined when the API server does not serve it). */
export type GenerateResourceResolver = (
  apiVersion: string,
  kind: string,
) => Promise<{ readonly group: string; readonly resource: string; readonly namespaced: boolean } | undefined>;

export interface GeneratePermissionOptions {
  readonly reviewer: AccessReviewer;
  readonly resolve: GenerateResourceResolver;
}

/** Whose permissions are checked: the policy's author (admission userInfo) or the background controller. */
export type GenerateWriter =
  | { readonly role: 'author'; readonly subject: AccessReviewSubject }
  | { readonly role: 'background'; readonly user: string };

/**
 * Whether the author's permissions are asked for this admission: on create, and on an update that
 * changes the spec (a label or annotation change keeps what the author was allowed before).
 */
export function authorCheckNeeded(object: KubeObject, oldObject: KubeObject | undefined): boolean {
  if (!oldObject) return true;
  return !deepEqual(object.spec as JsonValue | undefined, oldObject.spec as JsonValue | undefined);
}

/** Whether the policy is one this check covers (a cluster-scoped GeneratingPolicy). */
export function generatesAcrossNamespaces(object: KubeObject): boolean {
  return object.kind === 'GeneratingPolicy';
}

/**
 * Distinct targets asked one by one; past this (a policy naming many namespaces or kinds) they are
 * widened, never skipped: first each kind cluster-wide, then every resource everywhere, so the number
 * of access reviews a policy can cause stays bounded and the answer stays on the safe side.
 */
export const MAX_PERMISSION_TARGETS = 32;

interface Question {
  readonly target: GenerateTarget;
  readonly group: string;
  readonly resource: string;
  /** Empty: asked cluster-wide. */
  readonly namespace: string;
  /** Asked cluster-wide because the namespace is decided at generation. */
  readonly anyNamespace: boolean;
}

/** The problems found (empty: allowed); each names the generate entry's field. */
export async function checkGeneratePermissions(
  policy: KubeObject,
  writer: GenerateWriter,
  options: GeneratePermissionOptions,
): Promise<PolicyFieldError[]> {
  if (writer.role === 'author' && !writer.subject.user) {
    return [{ field: 'spec.generate', message: 'the policy author is unknown (no user in the admission request)' }];
  }
  const verbs = synchronizes(policy) ? ['get', 'create', 'update', 'delete'] : ['get', 'create'];
  const errors: PolicyFieldError[] = [];
  const answers = new Map<string, boolean>();
  for (const target of boundedTargets(generateTargets(policy))) {
    const fail = (message: string) => errors.push({ field: target.path, message });
    let question: Question | 'unknown kind' | undefined;
    try {
      question = await questionFor(target, writer, options.resolve);
    } catch (error) {
      fail(`could not look up kind ${target.apiVersion}/${target.kind}: ${errorMessage(error)}`);
      continue;
    }
    if (question === 'unknown kind') {
      fail(`failed to get GVR for kind ${target.apiVersion}/${target.kind}`);
      continue;
    }
    if (!question) continue;
    let missing: string[];
    try {
      missing = await missingVerbs(question, verbs, writer, options.reviewer, answers);
    } catch (error) {
      fail(`could not check the permissions of ${userOf(writer)}: ${errorMessage(error)}`);
      continue;
    }
    if (missing.length > 0) fail(refusal(question, writer, missing));
  }
  return errors;
}

function boundedTargets(targets: readonly GenerateTarget[]): GenerateTarget[] {
  const distinct = (list: readonly GenerateTarget[]) => [
    ...new Map(list.map((target) => [JSON.stringify(target), target])).values(),
  ];
  let bounded = distinct(targets);
  if (bounded.length > MAX_PERMISSION_TARGETS)
    bounded = distinct(bounded.map((target) => ({ ...target, namespace: undefined })));
  if (bounded.length > MAX_PERMISSION_TARGETS)
    bounded = distinct(
      bounded.map((target) => ({ path: target.path, namespace: undefined, apiVersion: undefined, kind: undefined })),
    );
  return bounded;
}

function synchronizes(policy: KubeObject): boolean {
  const evaluation = (policy.spec as { evaluation?: { synchronize?: { enabled?: unknown } } } | undefined)?.evaluation;
  return evaluation?.synchronize?.enabled === true;
}

async function questionFor(
  target: GenerateTarget,
  writer: GenerateWriter,
  resolve: GenerateResourceResolver,
): Promise<Question | 'unknown kind' | undefined> {
  const namespace = target.namespace ?? '';
  if (target.apiVersion === undefined || target.kind === undefined) {
    // Any kind may be written: the author must be allowed on all of them.
    const anyNamespace = target.namespace === undefined;
    return writer.role === 'author' ? { target, group: '*', resource: '*', namespace, anyNamespace } : undefined;
  }
  const found = await resolve(target.apiVersion, target.kind);
  if (!found) return 'unknown kind';
  return {
    target,
    group: found.group,
    resource: found.resource,
    namespace: found.namespaced ? namespace : '',
    anyNamespace: found.namespaced && target.namespace === undefined,
  };
}

async function missingVerbs(
  question: Question,
  verbs: readonly string[],
  writer: GenerateWriter,
  reviewer: AccessReviewer,
  answers: Map<string, boolean>,
): Promise<string[]> {
  const subject: AccessReviewSubject = writer.role === 'author' ? writer.subject : { user: writer.user };
  const missing: string[] = [];
  for (const verb of verbs) {
    const resourceAttributes = {
      group: question.group,
      resource: question.resource,
      ...(question.namespace ? { namespace: question.namespace } : {}),
      verb,
    };
    const key = JSON.stringify(resourceAttributes);
    let allowed = answers.get(key);
    if (allowed === undefined) {
      allowed = (await reviewer.review({ ...subject, resourceAttributes })).allowed;
      answers.set(key, allowed);
    }
    if (!allowed) missing.push(verb);
  }
  return missing;
}

function userOf(writer: GenerateWriter): string {
  return writer.role === 'author' ? writer.subject.user : writer.user;
}

function refusal(question: Question, writer: GenerateWriter, missing: readonly string[]): string {
  const { target } = question;
  const resource =
    target.kind === undefined
      ? 'all resources (the kind is decided at generation)'
      : `resource ${target.apiVersion}/${target.kind}`;
  const where = question.namespace
    ? ` in namespace ${question.namespace}`
    : question.anyNamespace
      ? ' in all namespaces (the namespace is decided at generation)'
      : '';
  const needs = `requires permissions ${missing.join(',')} for ${resource}${where}`;
  return writer.role === 'author'
    ? `policy author ${JSON.stringify(writer.subject.user)} is not authorized: ${needs}`
    : `${writer.user} ${needs}; grant them to the background controller`;
}
