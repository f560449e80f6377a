/**
 * Kubernetes' own admission policies in the admission chain, where kube-apiserver runs them: the
 * MutatingAdmissionPolicy plugin just before the mutating webhooks, the ValidatingAdmissionPolicy
 * plugin just before the validating webhooks (so a policy's denial spares the webhook call). The
 * stored policies and bindings are read on every request, so changes apply at once, and evaluated
 * by @edict/native-policies (the CLI's evaluator): match constraints, bindings, params, match
 * conditions, variables, validations with their actions (Deny refuses, Warn adds `Warning`
 * headers, Audit and auditAnnotations go to the audit log), mutations with reinvocation.
 *
 * Reinvocation as kube's admission chain does it: when a policy's mutation or a mutating webhook
 * changed the object, the mutating plugins run once more, and then only the policies with
 * reinvocationPolicy IfNeeded invoked before the change run again. (Edict's webhooks are never
 * reinvoked: webhook-admission.ts.)
 *
 * Bounds: each call's CEL by Kubernetes' cost limits (per expression and per call), the whole
 * evaluation of one request by a deadline, params per binding by MAX_PARAMS_PER_BINDING, and the
 * mutated object by the mutation limits. A deadline exceeded fails the request closed.
 */
import {
  compileMutatingAdmissionPolicy,
  compileValidatingAdmissionPolicy,
  dispatchMutatingAdmissionPolicies,
  dispatchValidatingAdmissionPolicies,
  MapReinvocationContext,
  matchResources,
  readMutatingPolicy,
  readPolicy,
  type Authorize,
  type CompiledMutatingAdmissionPolicy,
  type CompiledValidatingAdmissionPolicy,
  type MapPolicyError,
  type MatchResources,
} from '@edict/native-policies';
import {
  deadlineAfter,
  deepEqual,
  errorMessage,
  EvaluationDeadlineExceeded,
  isObject,
  type JsonObject,
} from '@edict/foundation';
import { internalError } from '../status';
import type { AuditLog } from './audit-log';
import { nativeAttributes } from './native/attributes';
import { mutatingPolicyDenied, validatingPolicyDenied } from './native/errors';
import type { NativePolicyObjects } from './native/policy-source';
import type { AdmissionAttributes, AdmissionChain } from './types';

/** How long the policies of one request may evaluate, all together (kube's request timeout is 60 s). */
export const NATIVE_POLICY_DEADLINE_MS = 10_000;

const VALIDATION_FAILURE = 'validation.policy.admission.k8s.io/validation_failure';

export interface NativePolicyAdmissionOptions {
  readonly objects: NativePolicyObjects;
  readonly authorize: Authorize;
  readonly audit: AuditLog;
  readonly deadlineMs?: number;
}

/** A policy that does not compile: kube's "failed to configure policy" under failurePolicy Fail. */
interface Unusable {
  readonly name: string;
  readonly failurePolicy: 'Fail' | 'Ignore';
  readonly matchConstraints?: MatchResources;
  readonly error: string;
}

type Compiled<T> = { readonly ok: T } | { readonly unusable: Unusable };
interface CompiledVersion<T> {
  readonly version: unknown;
  readonly compiled: Compiled<T>;
}

export class NativePolicyAdmission implements AdmissionChain {
  private readonly compiledValidating = new WeakMap<JsonObject, CompiledVersion<CompiledValidatingAdmissionPolicy>>();
  private readonly compiledMutating = new WeakMap<JsonObject, CompiledVersion<CompiledMutatingAdmissionPolicy>>();

  constructor(
    private readonly options: NativePolicyAdmissionOptions,
    /** The rest of the chain (the webhooks), called after each policy plugin. */
    private readonly next: AdmissionChain,
  ) {}

  async mutate(attributes: AdmissionAttributes, warnings: string[]): Promise<JsonObject | undefined> {
    const policies = this.mutatingPolicies();
    if (policies.length === 0) return this.next.mutate(attributes, warnings);
    const state = new MapReinvocationContext();
    const afterPolicies = await this.runMutating(policies, attributes, state, false);
    const afterWebhooks = await this.next.mutate({ ...attributes, object: afterPolicies }, warnings);
    if (!state.requested && deepEqual(afterPolicies ?? null, afterWebhooks ?? null)) return afterWebhooks;
    return this.runMutating(policies, { ...attributes, object: afterWebhooks }, state, true);
  }

  async validate(attributes: AdmissionAttributes, warnings: string[]): Promise<void> {
    const policies = this.validatingPolicies();
    if (policies.length > 0) await this.runValidating(policies, attributes, warnings);
    await this.next.validate(attributes, warnings);
  }

  private async runMutating(
    policies: readonly Compiled<CompiledMutatingAdmissionPolicy>[],
    attributes: AdmissionAttributes,
    state: MapReinvocationContext,
    reinvoke: boolean,
  ): Promise<JsonObject | undefined> {
    const request = nativeAttributes(attributes);
    const usable = policies.flatMap((policy) => ('ok' in policy ? [policy.ok] : []));
    const errors: { message: string; invalid: boolean }[] = this.unusableErrors(policies, attributes, 'policy');
    const dispatch = await this.bounded(() =>
      dispatchMutatingAdmissionPolicies(
        usable,
        this.options.objects.mutatingBindings(),
        request,
        {
          ...this.context(attributes),
          shape: (kind) => this.options.objects.shape(kind),
        },
        { context: state, reinvoke },
      ),
    );
    // kube answers with every error of a policy under failurePolicy Fail, the first one first.
    for (const [index, evaluation] of dispatch.evaluations.entries()) {
      if (usable[index]!.spec.failurePolicy === 'Ignore') continue;
      for (const error of evaluation.errors)
        errors.push({ message: policyErrorMessage(error), invalid: isInvalid(error) });
    }
    if (errors.length > 0) throw mutatingPolicyDenied(attributes, errors);
    return dispatch.object ?? undefined;
  }

  private async runValidating(
    policies: readonly Compiled<CompiledValidatingAdmissionPolicy>[],
    attributes: AdmissionAttributes,
    warnings: string[],
  ): Promise<void> {
    const request = nativeAttributes(attributes);
    const usable = policies.flatMap((policy) => ('ok' in policy ? [policy.ok] : []));
    const dispatch = await this.bounded(() =>
      dispatchValidatingAdmissionPolicies(
        usable,
        this.options.objects.validatingBindings(),
        request,
        this.context(attributes),
      ),
    );
    // kube's warning recorder keeps one of identical warnings.
    for (const warning of dispatch.warnings) if (!warnings.includes(warning)) warnings.push(warning);
    const annotations: Record<string, string> = { ...dispatch.auditAnnotations };
    if (dispatch.validationFailures.length > 0) {
      // kube adds the key once per failure and refuses to overwrite it: the first one stays.
      const failure = dispatch.validationFailures[0]!;
      annotations[VALIDATION_FAILURE] = JSON.stringify([
        {
          message: failure.message,
          policy: failure.policy,
          binding: failure.binding,
          expressionIndex: failure.expressionIndex,
          validationActions: failure.validationActions,
        },
      ]);
    }
    if (Object.keys(annotations).length > 0) this.audit(attributes, annotations);
    if (dispatch.denied) throw validatingPolicyDenied(attributes, dispatch.denied);
    const unusable = this.unusableErrors(policies, attributes, 'ValidatingAdmissionPolicy');
    if (unusable.length > 0) {
      throw validatingPolicyDenied(attributes, { message: unusable[0]!.message, reason: 'Invalid', code: 422 });
    }
  }

  private context(attributes: AdmissionAttributes) {
    const isNamespace =
      attributes.type.group === '' && attributes.type.plural === 'namespaces' && attributes.subresource === '';
    const namespaceObject =
      attributes.namespace && !isNamespace ? (this.options.objects.namespace(attributes.namespace) ?? null) : null;
    return {
      namespaceObject,
      params: this.options.objects.params,
      authorize: this.options.authorize,
      equivalents: this.options.objects.equivalents,
      deadline: deadlineAfter(this.options.deadlineMs ?? NATIVE_POLICY_DEADLINE_MS),
    };
  }

  /** Runs an evaluation; a deadline exceeded fails the request closed. */
  private async bounded<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof EvaluationDeadlineExceeded) {
        throw internalError(`admission policies did not finish in time: ${errorMessage(error)}`);
      }
      throw error;
    }
  }

  /** The configuration errors of policies that do not compile and match the request, under Fail. */
  private unusableErrors(
    policies: readonly Compiled<unknown>[],
    attributes: AdmissionAttributes,
    prefix: 'policy' | 'ValidatingAdmissionPolicy',
  ): { message: string; invalid: boolean }[] {
    const out: { message: string; invalid: boolean }[] = [];
    for (const policy of policies) {
      if (!('unusable' in policy)) continue;
      const { name, failurePolicy, matchConstraints, error } = policy.unusable;
      if (failurePolicy === 'Ignore' || !matchConstraints) continue;
      const namespace = attributes.namespace ? (this.options.objects.namespace(attributes.namespace) ?? null) : null;
      const match = matchResources(matchConstraints, nativeAttributes(attributes), namespace, {
        equivalents: this.options.objects.equivalents,
      });
      if (!match.matches) continue;
      const quoted = prefix === 'policy' ? `policy ${name}` : `ValidatingAdmissionPolicy '${name}'`;
      out.push({ message: `${quoted} denied request: failed to configure policy: ${error}`, invalid: false });
    }
    return out;
  }

  private audit(attributes: AdmissionAttributes, annotations: Record<string, string>): void {
    const { type } = attributes;
    this.options.audit.record({
      operation: attributes.operation,
      apiVersion: type.group ? `${type.group}/${type.version}` : type.version,
      resource: attributes.subresource ? `${type.plural}/${attributes.subresource}` : type.plural,
      namespace: attributes.namespace,
      name: attributes.name || nameOf(attributes.object),
      user: attributes.userInfo.username,
      dryRun: attributes.dryRun,
      annotations,
    });
  }

  private validatingPolicies(): Compiled<CompiledValidatingAdmissionPolicy>[] {
    return this.options.objects
      .validatingPolicies()
      .map((policy) => compiledOnce(this.compiledValidating, policy, compileValidatingAdmissionPolicy, readPolicy));
  }

  private mutatingPolicies(): Compiled<CompiledMutatingAdmissionPolicy>[] {
    return this.options.objects
      .mutatingPolicies()
      .map((policy) => compiledOnce(this.compiledMutating, policy, compileMutatingAdmissionPolicy, readMutatingPolicy));
  }
}

/**
 * A stored policy compiled once per stored version (object and resourceVersion), as kube-apiserver
 * compiles a policy once per version rather than per request.
 */
function compiledOnce<T>(
  cache: WeakMap<JsonObject, CompiledVersion<T>>,
  policy: JsonObject,
  compile: (policy: JsonObject) => T,
  read: (policy: JsonObject) => { failurePolicy?: 'Fail' | 'Ignore'; matchConstraints?: MatchResources },
): Compiled<T> {
  const version = isObject(policy.metadata) ? policy.metadata.resourceVersion : undefined;
  const cached = cache.get(policy);
  if (cached && cached.version === version) return cached.compiled;
  let compiled: Compiled<T>;
  try {
    compiled = { ok: compile(policy) };
  } catch (error) {
    const spec = safely(() => read(policy));
    compiled = { unusable: unusable(policy, spec?.failurePolicy, spec?.matchConstraints, error) };
  }
  cache.set(policy, { version, compiled });
  return compiled;
}

function unusable(
  policy: JsonObject,
  failurePolicy: 'Fail' | 'Ignore' | undefined,
  matchConstraints: MatchResources | undefined,
  error: unknown,
): Unusable {
  return {
    name: nameOf(policy),
    failurePolicy: failurePolicy ?? 'Fail',
    ...(matchConstraints ? { matchConstraints } : {}),
    error: errorMessage(error),
  };
}

function safely<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

function nameOf(object: JsonObject | undefined | null): string {
  const metadata = isObject(object?.metadata) ? object.metadata : {};
  return typeof metadata.name === 'string' ? metadata.name : '';
}

/** kube's PolicyError text: `policy '<p>' with binding '<b>' denied request: <why>`. */
function policyErrorMessage(error: MapPolicyError): string {
  const binding = error.binding !== undefined ? `'${error.policy}' with binding '${error.binding}'` : error.policy;
  return `policy ${binding} denied request: ${error.message}`;
}

/** The mutating dispatcher's own errors carry reason Invalid; the generic dispatcher's (binding configuration) none. */
function isInvalid(error: MapPolicyError): boolean {
  return !error.message.startsWith('failed to configure');
}
