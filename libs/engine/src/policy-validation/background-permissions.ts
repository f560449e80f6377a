/**
 * Kyverno's authorization checks at policy admission: the background controller writes what
 * generate rules produce and what mutate-existing rules patch, so a policy is refused when that
 * controller's identity may not do it (one SubjectAccessReview per verb). The questions are worked
 * out here; asking them goes through the AccessReviewer port and a kind-to-resource resolver.
 */
import type { AccessReviewer } from '../core/loaders';
import { withAutogen, type Generation, type Policy } from '../policy';
import { formatPath, type Diagnostic, errorMessage } from '@edict/foundation';
import { containsVariable } from './json-walk';

/** The writes one rule needs the background controller to be allowed. */
export interface PermissionQuestion {
  /** Field path of the rule part needing them, e.g. `spec.rules[0].generate`. */
  readonly path: string;
  readonly rule: string;
  readonly action: 'generate' | 'mutate';
  /** `apps/v1`; `*` or a variable when the rule leaves it open (then it cannot be asked). */
  readonly apiVersion: string;
  readonly kind: string;
  readonly subresource: string;
  /** Empty for cluster-scoped kinds and when the rule names it with a variable (asked cluster-wide). */
  readonly namespace: string;
  readonly name: string;
  readonly verbs: readonly string[];
}

/** Maps a kind to the resource an access review names (undefined when the API server does not serve it). */
export type ResourceResolver = (
  apiVersion: string,
  kind: string,
) => Promise<{ readonly group: string; readonly resource: string } | undefined>;

export interface BackgroundPermissionOptions {
  /** The background controller's username, e.g. `system:serviceaccount:kyverno:kyverno-background-controller`. */
  readonly user: string;
  readonly reviewer: AccessReviewer;
  readonly resolve: ResourceResolver;
  /** Told about each question that cannot be asked (a kind left open), which is then skipped as Kyverno does. */
  readonly skipped?: (question: PermissionQuestion, why: string) => void;
}

type GeneratePattern = Omit<Generation, 'foreach'>;

/** What each generate and mutate-existing rule of the policy needs the background controller to be allowed. */
export function backgroundPermissionQuestions(policy: Policy): PermissionQuestion[] {
  const questions: PermissionQuestion[] = [];
  (policy.spec?.rules ?? []).forEach((rule, i) => {
    const at = ['spec', 'rules', i] as const;
    const generate = rule.generate;
    if (generate) {
      const verbs = generate.synchronize ? ['get', 'create', 'update', 'delete'] : ['get', 'create'];
      const patterns: [GeneratePattern, string][] = generate.foreach
        ? generate.foreach.map((entry, j) => [entry, formatPath([...at, 'generate', 'foreach', j])])
        : [[generate, formatPath([...at, 'generate'])]];
      for (const [pattern, path] of patterns) {
        for (const target of generatedKinds(pattern)) {
          questions.push({ path, rule: rule.name, action: 'generate', ...target, verbs });
        }
      }
    }
    const mutate = rule.mutate;
    // Kyverno checks the targets of a mutate rule without foreach only.
    if (mutate?.targets && !(mutate.foreach?.length ?? 0)) {
      const path = formatPath([...at, 'mutate', 'targets']);
      for (const target of mutate.targets) {
        const { kind, subresource } = kindParts(target.kind ?? '');
        questions.push({
          path,
          rule: rule.name,
          action: 'mutate',
          apiVersion: target.apiVersion ?? '',
          kind,
          subresource,
          namespace: literalOrEmpty(target.namespace),
          name: literalOrEmpty(target.name),
          verbs: ['get', 'update'],
        });
      }
    }
  });
  return questions;
}

/**
 * Asks every question of the policy about `user`; a refusal names the rule, the user, the verbs
 * missing and the kind, as Kyverno's message does. A review that cannot be made or a kind the API
 * server does not serve refuses the policy too (fail closed).
 */
export async function checkBackgroundPermissions(
  policy: Policy,
  options: BackgroundPermissionOptions,
): Promise<Diagnostic[]> {
  const diagnostics: Diagnostic[] = [];
  const object = `${policy.kind}/${policy.metadata?.name ?? ''}`;
  const answers = new Map<string, boolean>();
  for (const question of backgroundPermissionQuestions(policy)) {
    const open = openPart(question);
    if (open) {
      options.skipped?.(question, open);
      continue;
    }
    const fail = (message: string): void => {
      diagnostics.push({ file: '', object, path: question.path, message: `rule ${question.rule}: ${message}` });
    };
    let target: { group: string; resource: string } | undefined;
    try {
      target = await options.resolve(question.apiVersion, question.kind);
    } catch (error) {
      fail(`could not look up kind ${question.apiVersion}/${question.kind}: ${errorMessage(error)}`);
      continue;
    }
    if (!target) {
      fail(`failed to get GVR for kind ${question.apiVersion}/${question.kind}`);
      continue;
    }
    let missing: string[];
    try {
      missing = await missingVerbs(question, target, options, answers);
    } catch (error) {
      fail(`could not check the permissions of ${options.user}: ${errorMessage(error)}`);
      continue;
    }
    if (missing.length > 0) fail(refusal(question, options.user, missing));
  }
  return diagnostics;
}

/** The verbs of the question the user may not use; answers are remembered per policy (rules repeat kinds). */
async function missingVerbs(
  question: Pick<PermissionQuestion, 'verbs'> & Partial<Pick<PermissionQuestion, 'subresource' | 'namespace' | 'name'>>,
  target: { group: string; resource: string },
  options: { readonly user: string; readonly reviewer: AccessReviewer },
  answers: Map<string, boolean>,
): Promise<string[]> {
  const missing: string[] = [];
  for (const verb of question.verbs) {
    const resourceAttributes = {
      group: target.group,
      resource: target.resource,
      ...(question.subresource ? { subresource: question.subresource } : {}),
      ...(question.namespace ? { namespace: question.namespace } : {}),
      ...(question.name ? { name: question.name } : {}),
      verb,
    };
    const key = JSON.stringify(resourceAttributes);
    let allowed = answers.get(key);
    if (allowed === undefined) {
      allowed = (await options.reviewer.review({ user: options.user, resourceAttributes })).allowed;
      answers.set(key, allowed);
    }
    if (!allowed) missing.push(verb);
  }
  return missing;
}

function refusal(question: PermissionQuestion, user: string, missing: readonly string[]): string {
  const resource = `${question.apiVersion}/${question.kind}${question.subresource ? `/${question.subresource}` : ''}`;
  const where = question.namespace ? ` in namespace ${question.namespace}` : '';
  const needs = `${user} requires permissions ${missing.join(',')} for resource ${resource}${where}`;
  return question.action === 'mutate'
    ? `auth check fails, additional privileges are required for the service account '${user}': ${needs}`
    : `${needs}; grant them to the background controller`;
}

/** Why a question cannot be asked (its kind is left to a variable or a wildcard), or undefined. */
function openPart(question: PermissionQuestion): string | undefined {
  if (containsVariable(question.kind) || containsVariable(question.apiVersion)) return 'its kind uses variables';
  if (question.apiVersion === '' || question.apiVersion.includes('*') || question.kind.includes('*')) {
    return 'its kind names no single API version';
  }
  return undefined;
}

/** The kinds a generate pattern writes: its own, or each of its cloneList (`v1/Secret`, `apps/v1/Deployment`). */
function generatedKinds(pattern: GeneratePattern): Omit<PermissionQuestion, 'path' | 'rule' | 'action' | 'verbs'>[] {
  const namespace = literalOrEmpty(pattern.namespace);
  const kinds = pattern.cloneList?.kinds ?? [];
  if (kinds.length === 0) {
    const { kind, subresource } = kindParts(pattern.kind ?? '');
    return [{ apiVersion: pattern.apiVersion ?? '', kind, subresource, namespace, name: '' }];
  }
  return kinds.map((entry) => ({ ...kindParts(entry), namespace, name: '' }));
}

/**
 * A kind selector's parts: `apps/v1/Deployment/scale` is group version `apps/v1`, kind
 * `Deployment`, subresource `scale`. The kind is the first part starting upper case (or `*`).
 */
function kindParts(selector: string): { apiVersion: string; kind: string; subresource: string } {
  const parts = selector.split('/');
  const at = Math.max(
    0,
    parts.findIndex((part) => /^[A-Z*]/.test(part)),
  );
  return {
    apiVersion: parts.slice(0, at).join('/'),
    kind: parts[at] ?? '',
    subresource: parts.slice(at + 1).join('/'),
  };
}

function literalOrEmpty(value: string | undefined): string {
  return value && !containsVariable(value) ? value : '';
}

/** Maps a rule's kind selector (`Pod`, `apps/v1/Deployment`) to the resource an access review names. */
export type KindSelectorResolver = (
  selector: string,
) => Promise<{ readonly group: string; readonly resource: string } | undefined>;

export interface ReportsPermissionOptions {
  /** The reports controller's username. */
  readonly user: string;
  readonly reviewer: AccessReviewer;
  readonly resolve: KindSelectorResolver;
}

const REPORT_VERBS = ['get', 'list', 'watch'] as const;

/**
 * Kyverno's warnings about the reports controller (validateAuthReports): for each validate, mutate or
 * generate rule (autogen rules included), whether that controller may get, list and watch each kind
 * the rule matches. A rule naming a wildcard kind is not checked; a validate rule stops at its first
 * warning. A kind discovery does not resolve is left unchecked (the kinds check warns about it).
 */
export async function reportsPermissionWarnings(policy: Policy, options: ReportsPermissionOptions): Promise<string[]> {
  const warnings: string[] = [];
  const answers = new Map<string, boolean>();
  for (const rule of withAutogen(policy).spec.rules ?? []) {
    if (!rule.validate && !rule.mutate && !rule.generate) continue;
    const kinds = [
      ...(rule.match?.any ?? []).flatMap((f) => f.resources?.kinds ?? []),
      ...(rule.match?.all ?? []).flatMap((f) => f.resources?.kinds ?? []),
      ...(rule.match?.resources?.kinds ?? []),
    ];
    const ruleWarnings: string[] = [];
    for (const kind of kinds) {
      if (kind.includes('*') || kind.includes('?')) {
        ruleWarnings.length = 0;
        break;
      }
      const target = await options.resolve(kind);
      if (!target) continue;
      const missing = await missingVerbs({ verbs: REPORT_VERBS }, target, options, answers);
      if (missing.length > 0) {
        ruleWarnings.push(`${options.user} requires permissions ${missing.join(',')} for resource ${kind}`);
        if (rule.validate) break;
      }
    }
    warnings.push(...ruleWarnings);
  }
  return warnings;
}
