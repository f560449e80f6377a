import {
  DEFAULT_EVALUATION_LIMITS,
  EvaluationBudget,
  EvaluationDeadlineExceeded,
  type EvaluationDeadline,
  type EvaluationLimits,
  type SizeMemo,
  BoundedCache,
  errorMessage,
  TRACE_KEYS,
  type JsonValue,
  type KubeObject,
  type Tracing,
} from '@edict/foundation';
import { extractImages, imagesAsJson } from '../images';
import { matchingExceptions, exceptionKey } from '../exceptions';
import { loadContextEntries, type ContextLoadOptions } from '../context-entries';
import { gvkOf, ruleMatches, type MatchRequest } from '../match';
import type { Policy, PolicyException, Rule } from '../policy/types';
import { validatePodSecurity } from '../validate/validate-pod-security';
import { validateResource } from '../validate/validate-resource';
import { validateCel } from '../validate/cel/validate-cel';
import { validateImages } from '../verify-images/validate-images';
import { verifyImagesRule } from '../verify-images/verify-rule';
import { VerifiedImages } from '../verify-images/annotation';
import type { JsonPatchOperation } from '../mutate/admission-patch';
import { mutateExisting } from '../mutate/mutate-existing';
import { mutateResource } from '../mutate/mutate-resource';
import { generateResources } from '../generate';
import type { RuleRun } from '../validate/rule-run';
import { EvaluationContext } from '../variables';
import { compilePolicy, type CompiledPolicy } from './compile';
import { policyMatchConditionsHold } from './policy-match-conditions';
import { INTERPRETER } from '../core/evaluators';
import { failureActionFor, policyFailureAction } from '../core/failure-action';
import { andThen, type MaybePromise } from '../core/maybe-promise';
import type { AccessReviewer, ContextLoaders, ResourceLoader } from '../core/loaders';
import { ruleError, ruleResponse } from '../core/responses';
import type { PolicyResponse, ResourceRequest, RuleResponse, RuleType } from '../core/types';

export type { CompiledPolicy } from './compile';

/** Values injected by the caller instead of loading them (Kyverno CLI values files). */
export interface EvaluationOptions {
  /** Variables for one rule; the engine asks with the rule's name and, for autogen copies, the original name. */
  ruleValues?(policyName: string, ruleName: string): Record<string, JsonValue> | undefined;
  /** Per-iteration values for foreach loops of one rule, by loop variable name. */
  foreachValues?(policyName: string, ruleName: string): Record<string, JsonValue[]> | undefined;
  /** Variables for every rule. */
  globalValues?: Record<string, JsonValue>;
  /**
   * When to give up: checked between rules and foreach iterations, inside JMESPath evaluation and
   * pattern walks. Once expired, validate/mutate/generate reject with EvaluationDeadlineExceeded.
   */
  deadline?: EvaluationDeadline;
}

export interface EngineDependencies {
  loaders?: ContextLoaders;
  resources?: ResourceLoader;
  /** Answers CEL `authorizer` checks (validate.cel); without one, every check is an errored decision. */
  accessReviewer?: AccessReviewer;
  /** The PolicyExceptions in force; read on every evaluation so callers can swap them. */
  exceptions?: () => readonly PolicyException[];
  /**
   * Size bounds of every evaluation (DEFAULT_EVALUATION_LIMITS: Kyverno's 2 MiB). Passing one ends
   * the rule in `error` with a message naming the bound. A function is read on every evaluation, so
   * the caller can change them (the controller's ConfigMap).
   */
  limits?: Partial<EvaluationLimits> | (() => Readonly<EvaluationLimits>);
  /**
   * Whether `compile` prepares each rule's matching, conditions and patterns once (default: on,
   * unless the environment sets EDICT_COMPILED_POLICIES=false). Off, every rule is interpreted.
   */
  compiledPolicies?: boolean;
  /**
   * No cluster stands behind `resources` (the CLI, whose loaders serve a test's files): validate.cel's
   * `namespaceObject` is then built from the request, as Kyverno's CLI builds it, rather than read.
   */
  offline?: boolean;
  /**
   * Where spans go (Kyverno's `POLICY <namespace>/<name>` per policy evaluated, `RULE <name>` per
   * rule run). Absent or disabled: none is started.
   */
  tracing?: Tracing;
}

/** The default of `compiledPolicies`: an operator switch for comparing against the interpreter. */
function compiledPoliciesByDefault(): boolean {
  return globalThis.process?.env?.['EDICT_COMPILED_POLICIES'] !== 'false';
}

const AUTOGEN_PREFIX = /^autogen-(cronjob-)?/;

/**
 * What a rule type does with a matched rule once its context, preconditions and exceptions are known.
 * Synchronous when nothing waits, so a rule without external data costs no promise.
 */
type RuleHandler = (run: RuleRun, exceptions: readonly PolicyException[]) => MaybePromise<RuleResponse[]>;

/** What every rule of a policy evaluation shares (built once per evaluation, read-only). */
interface PolicyRun {
  readonly compiled: CompiledPolicy;
  readonly type: RuleType;
  readonly request: ResourceRequest;
  readonly ctx: EvaluationContext;
  readonly options: EvaluationOptions;
  readonly handle: RuleHandler;
  /** Where rules load their context entries from. */
  readonly loading: ContextLoadOptions;
  /** Why the request's context could not be built (its images): every matched rule errors. */
  readonly contextError?: unknown;
}

const NO_EXCEPTIONS: readonly PolicyException[] = Object.freeze([]);

/**
 * A verifyImages answer (Kyverno's VerifyAndPatchImages): one response per verified image, the
 * digest patches against the request's object, and the images to record in the
 * `kyverno.io/verify-images` annotation (which the caller writes once for all policies).
 */
export type ImageVerificationResponse = PolicyResponse & {
  patches: JsonPatchOperation[];
  verifiedImages: VerifiedImages;
};

/** A mutate answer: the rule responses and the resource after every patch of the policy. */
export type MutationResponse = PolicyResponse & { patchedResource?: KubeObject };

export class Engine {
  private readonly limits: () => Readonly<EvaluationLimits>;
  private readonly compiledPolicies: boolean;
  /** Compiled policies by identity and version, so a policy version is compiled once. */
  private readonly compiled = new BoundedCache<CompiledPolicy>(1024);

  constructor(private readonly deps: EngineDependencies = {}) {
    this.compiledPolicies = deps.compiledPolicies ?? compiledPoliciesByDefault();
    const limits = deps.limits;
    if (typeof limits === 'function') this.limits = limits;
    else {
      const fixed = Object.freeze({ ...DEFAULT_EVALUATION_LIMITS, ...limits });
      this.limits = () => fixed;
    }
  }

  /**
   * Prepares a policy for evaluation. A policy read from the cluster (with a uid and a
   * resourceVersion) is compiled once per version; any other, such as one read from a file, is
   * compiled anew: its name and version need not tell two contents apart.
   */
  compile(policy: Policy): CompiledPolicy {
    const { uid, resourceVersion } = policy.metadata ?? {};
    if (uid === undefined || resourceVersion === undefined) {
      return compilePolicy(policy, { compiled: this.compiledPolicies });
    }
    const identity = `${policy.kind}/${policy.metadata.namespace ?? ''}/${policy.metadata.name}/${uid}@${resourceVersion}`;
    return this.compiled.getOrCreate(identity, () => compilePolicy(policy, { compiled: this.compiledPolicies }));
  }

  /** Runs the policy's validate rules against one request, as Kyverno's engine Validate does. */
  async validate(
    compiled: CompiledPolicy,
    request: ResourceRequest,
    options: EvaluationOptions = {},
  ): Promise<PolicyResponse> {
    return this.traced(compiled, () =>
      this.process(compiled, compiled.validateRules, 'Validation', request, options, (run, exceptions) =>
        this.validateRule(compiled, run, exceptions, options),
      ),
    );
  }

  /** `evaluate` in the policy's span (Kyverno's webhook handlers start one per policy evaluated). */
  private traced<R>(compiled: CompiledPolicy, evaluate: () => Promise<R>): Promise<R> {
    const tracing = this.deps.tracing;
    if (!tracing?.enabled) return evaluate();
    const { policy } = compiled;
    const slash = policy.apiVersion?.indexOf('/') ?? -1;
    return tracing.span(
      `POLICY ${policy.metadata.namespace ?? ''}/${policy.metadata.name}`,
      {
        [TRACE_KEYS.policyName]: policy.metadata.name,
        [TRACE_KEYS.policyNamespace]: policy.metadata.namespace ?? '',
        [TRACE_KEYS.policyKind]: policy.kind,
        [TRACE_KEYS.policyGroup]: slash < 0 ? '' : policy.apiVersion.slice(0, slash),
        [TRACE_KEYS.policyVersion]: slash < 0 ? (policy.apiVersion ?? '') : policy.apiVersion.slice(slash + 1),
      },
      evaluate,
    );
  }

  private validateRule(
    compiled: CompiledPolicy,
    run: RuleRun,
    exceptions: readonly PolicyException[],
    options: EvaluationOptions,
  ): MaybePromise<RuleResponse[]> {
    const { rule } = run;
    let response: MaybePromise<RuleResponse | undefined>;
    if (rule.validate?.podSecurity) response = validatePodSecurity(run, exceptions);
    else if (exceptions.length > 0) response = exceptionSkip(rule, 'Validation', exceptions);
    else if (!rule.validate) response = validateImages(run);
    else if (rule.validate.cel) {
      response = validateCel(run, {
        resources: this.deps.resources,
        accessReviewer: this.deps.accessReviewer,
        offline: this.deps.offline,
      });
    } else response = validateResource(run);
    return andThen(response, (settled) => this.settleValidation(compiled, run, settled, options));
  }

  /** A validate rule's response with its failure action, or a skip when the old object broke it already. */
  private settleValidation(
    compiled: CompiledPolicy,
    run: RuleRun,
    response: RuleResponse | undefined,
    options: EvaluationOptions,
  ): MaybePromise<RuleResponse[]> {
    if (!response) return [];
    const { rule, resource, request } = run;
    response.failureAction =
      compiled.failureActions.rules.get(rule) ??
      failureActionFor(compiled.policy, rule, {
        namespace: resource.metadata?.namespace,
        namespaceLabels: request.namespaceLabels,
      });
    if (response.status === 'pass' || !mayAllowExistingViolation(run, response)) return [response];
    return this.violatedBefore(compiled, run, response, options).then((before) => {
      if (!before) return [response];
      const skip = ruleResponse(
        rule,
        'Validation',
        'skip',
        'skipping the rule evaluation as pre-existing violations are allowed',
      );
      skip.failureAction = response.failureAction;
      return [skip];
    });
  }

  /**
   * Enforce pattern and podSecurity rules let an UPDATE through when the old object already broke
   * the rule the same way (`allowExistingViolations`, on by default), so existing workloads can still
   * be changed. Deny and foreach rules judge every request on its own, as in Kyverno.
   * Called only when `mayAllowExistingViolation` holds.
   */
  private async violatedBefore(
    compiled: CompiledPolicy,
    run: RuleRun,
    response: RuleResponse,
    options: EvaluationOptions,
  ): Promise<boolean> {
    const { request, rule } = run;
    const asCreated: ResourceRequest = {
      ...request,
      operation: 'CREATE',
      resource: request.oldResource,
      oldResource: undefined,
      admissionRequest: undefined,
    };
    const prior = await this.process(compiled, [rule], 'Validation', asCreated, options, (priorRun, priorExceptions) =>
      this.validateRule(compiled, priorRun, priorExceptions, options),
    );
    return prior.rules.some((priorResponse) => priorResponse.status === response.status);
  }

  /**
   * Runs the policy's mutate rules in order, each on the resource left by the previous one, as
   * Kyverno's engine Mutate does. Mutate-existing rules patch their targets, never the trigger.
   */
  async mutate(
    compiled: CompiledPolicy,
    request: ResourceRequest,
    options: EvaluationOptions = {},
  ): Promise<MutationResponse> {
    return this.traced(compiled, () => this.mutateTraced(compiled, request, options));
  }

  private async mutateTraced(
    compiled: CompiledPolicy,
    request: ResourceRequest,
    options: EvaluationOptions,
  ): Promise<MutationResponse> {
    let patched = request.resource;
    const response = await this.process(
      compiled,
      compiled.mutateRules,
      'Mutation',
      request,
      options,
      async (run, exceptions) => {
        if (exceptions.length > 0) return [exceptionSkip(run.rule, 'Mutation', exceptions)];
        if (run.rule.mutate?.targets) return mutateExisting(run, this.deps.resources, compiled.namespace);
        const result = await mutateResource(run);
        if (result.patchedResource) patched = result.patchedResource;
        return [result];
      },
      () => patched,
    );
    const mutation: MutationResponse = response;
    mutation.patchedResource = patched;
    return mutation;
  }

  /**
   * Runs the policy's verifyImages rules (the mutating webhook's side): signatures and attestations
   * checked through the loaders' registry access, digests patched in, outcomes recorded.
   */
  async verifyImages(
    compiled: CompiledPolicy,
    request: ResourceRequest,
    options: EvaluationOptions = {},
  ): Promise<ImageVerificationResponse> {
    return this.traced(compiled, () => this.verifyImagesTraced(compiled, request, options));
  }

  private async verifyImagesTraced(
    compiled: CompiledPolicy,
    request: ResourceRequest,
    options: EvaluationOptions,
  ): Promise<ImageVerificationResponse> {
    const patches: JsonPatchOperation[] = [];
    const verifiedImages = new VerifiedImages();
    const response = await this.process(
      compiled,
      compiled.imageVerifyRules,
      'ImageVerify',
      request,
      options,
      async (run, exceptions) => {
        if (exceptions.length > 0) return [exceptionSkip(run.rule, 'ImageVerify', exceptions)];
        const outcome = await verifyImagesRule(run, {
          loaders: this.deps.loaders,
          resources: this.deps.resources,
          policyName: compiled.policy.metadata.name,
          policyNamespace: compiled.namespace,
          verified: verifiedImages,
        });
        patches.push(...outcome.patches);
        const failureAction = failureActionFor(compiled.policy, run.rule, {
          namespace: run.resource.metadata?.namespace,
          namespaceLabels: request.namespaceLabels,
        });
        for (const result of outcome.responses) result.failureAction = failureAction;
        return outcome.responses;
      },
    );
    return Object.assign(response, { patches, verifiedImages });
  }

  /**
   * Computes what the policy's generate rules want to exist for this trigger. Applying it (create,
   * update, synchronize) is the background controller's job.
   */
  async generate(
    compiled: CompiledPolicy,
    request: ResourceRequest,
    options: EvaluationOptions = {},
  ): Promise<PolicyResponse> {
    return this.traced(compiled, () =>
      this.process(compiled, compiled.generateRules, 'Generation', request, options, async (run, exceptions) => {
        if (exceptions.length > 0) return [exceptionSkip(run.rule, 'Generation', exceptions)];
        const response = await generateResources(run, this.deps.resources, compiled.policy, compiled.namespace);
        return response ? [response] : [];
      }),
    );
  }

  /**
   * The rule loop every rule type shares: match, the rule's context and preconditions, the
   * exceptions that apply, then the type's handler. `current` gives the resource each rule sees
   * when it changes as the rules go (mutation); otherwise every rule sees the request's.
   */
  private async process(
    compiled: CompiledPolicy,
    rules: readonly Rule[],
    type: RuleType,
    request: ResourceRequest,
    options: EvaluationOptions,
    handle: RuleHandler,
    current?: () => KubeObject | undefined,
  ): Promise<PolicyResponse> {
    const trigger = request.resource ?? request.oldResource;
    const response = emptyPolicyResponse(compiled, request);
    if (!trigger || !appliesToNamespace(compiled, request)) return response;
    const conditions = compiled.matchConditions;
    if (conditions && !policyMatchConditionsHold(conditions, request, trigger, this.limits(), options.deadline))
      return response;

    // Built at the first rule that matches: a policy none of whose rules match costs no context.
    let run: PolicyRun | undefined;
    const applyOne = compiled.policy.spec.applyRules === 'One';
    let matchRequest = toMatchRequest(request, trigger);
    // While the resource stays the trigger, its kind does: rules that cannot match it are not tried.
    const kind = matchRequest.requestKind;
    const candidates =
      current || !kind || !compiled.rulesByKind
        ? rules
        : compiled.rulesByKind.select(rules, kind, request.subresource ?? '');
    for (const rule of candidates) {
      if (run) run.ctx.budget.checkDeadline();
      else if (options.deadline?.expired()) throw new EvaluationDeadlineExceeded();
      const paused = options.deadline?.yieldTurn?.();
      if (paused) {
        await paused;
        if (options.deadline?.expired()) throw new EvaluationDeadlineExceeded();
      }
      const resource = (current && current()) ?? trigger;
      if (matchRequest.resource !== resource) matchRequest = toMatchRequest(request, resource);
      const matches = compiled.programs.get(rule)?.matches;
      const matched = matches
        ? matches(matchRequest, compiled.namespace)
        : ruleMatches(rule, matchRequest, compiled.namespace).matched;
      if (!matched) continue;
      run ??= this.policyRun(compiled, type, request, trigger, options, handle);
      const active = run;
      const pending = active.contextError
        ? [ruleError(rule, type, 'failed to build the policy context', active.contextError)]
        : this.deps.tracing?.enabled
          ? this.deps.tracing.span(`RULE ${rule.name}`, { [TRACE_KEYS.ruleName]: rule.name }, () =>
              this.runBoundedRule(active, rule, resource, matchRequest),
            )
          : this.runBoundedRule(active, rule, resource, matchRequest);
      const results = pending instanceof Promise ? await pending : pending;
      // The rule's context is gone, but the resource it left stays: later rules' variables and
      // preconditions read the patched `request.object`, as in Kyverno.
      const after = current?.();
      if (after && after !== resource) run.ctx.replace('request.object', after);
      for (const result of results) response.rules.push(result);
      if (applyOne && results.some((result) => result.status === 'pass' || result.status === 'fail')) break;
    }
    return response;
  }

  private policyRun(
    compiled: CompiledPolicy,
    type: RuleType,
    request: ResourceRequest,
    trigger: KubeObject,
    options: EvaluationOptions,
    handle: RuleHandler,
  ): PolicyRun {
    const { ctx, error } = this.createContext(request, trigger, options);
    return {
      compiled,
      type,
      request,
      ctx,
      options,
      handle,
      loading: {
        loaders: this.deps.loaders,
        scope: { policyNamespace: compiled.namespace, deadline: options.deadline },
      },
      contextError: error,
    };
  }

  /**
   * The request's context: built once per request object (the webhook evaluates many policies on one
   * request) and forked per policy, with the caller's global values on top. A resource whose images
   * cannot be parsed fails every rule that matches it, as in Kyverno. Each policy evaluation gets
   * its own budget; they share the request's size memo, so its data is measured once.
   */
  private createContext(
    request: ResourceRequest,
    resource: KubeObject,
    options: EvaluationOptions,
  ): { ctx: EvaluationContext; error?: unknown } {
    let base = requestContexts.get(request);
    if (!base) {
      const ctx = EvaluationContext.forRequest(request);
      const sizes = new Map<object, number>();
      try {
        const images = imagesAsJson(extractImages(resource));
        if (Object.keys(images).length > 0) ctx.add('images', images);
        base = { ctx, sizes };
      } catch (error) {
        base = { ctx, sizes, error };
      }
      // Every policy's rules read this same document first: they share their query results. The
      // interpreter, the reference, answers every query itself.
      if (this.compiledPolicies) ctx.shareQueryResults();
      requestContexts.set(request, base);
    }
    const ctx = base.ctx.fork(new EvaluationBudget(this.limits(), options.deadline, base.sizes));
    if (options.globalValues) for (const [name, value] of Object.entries(options.globalValues)) ctx.add(name, value);
    return { ctx, error: base.error };
  }

  /**
   * A rule under the evaluation's budget. The budget's verdicts stand whatever caught their errors
   * inside the rule: a passed deadline ends the whole evaluation, an exceeded size limit the rule.
   */
  private runBoundedRule(
    run: PolicyRun,
    rule: Rule,
    resource: KubeObject,
    matchRequest: MatchRequest,
  ): MaybePromise<RuleResponse[]> {
    const budget = run.ctx.budget;
    budget.takeLimitError();
    budget.startRule();
    return andThen(this.runRule(run, rule, resource, matchRequest), (results) => {
      if (budget.expired) throw new EvaluationDeadlineExceeded();
      const exceeded = budget.takeLimitError();
      return exceeded ? [ruleResponse(rule, run.type, 'error', exceeded.message)] : results;
    });
  }

  /**
   * One matched rule in its own layer of the context (dropped when the rule is done): the caller's
   * values, the rule's context entries, then `evaluateRule`. Synchronous unless an entry or the
   * handler waits.
   */
  private runRule(
    run: PolicyRun,
    rule: Rule,
    resource: KubeObject,
    matchRequest: MatchRequest,
  ): MaybePromise<RuleResponse[]> {
    const { ctx, type } = run;
    const values = valuesFor(run.options.ruleValues, run.compiled.policy.metadata.name, rule.name);
    ctx.checkpoint();
    let pending: MaybePromise<RuleResponse[]>;
    try {
      if (values) for (const [name, value] of Object.entries(values)) ctx.add(name, value);
      const loaded =
        rule.context && rule.context.length > 0
          ? loadContextEntries(rule.context, ctx, {
              // Written out, not spread and extended: V8 adds a key a spread lacks the slow way.
              loaders: run.loading.loaders,
              scope: run.loading.scope,
              provided: new Set(Object.keys(values ?? {})),
            })
          : undefined;
      pending =
        loaded instanceof Promise
          ? loaded.then(
              () => this.evaluateRule(run, rule, resource, matchRequest),
              (error: unknown) => [ruleError(rule, type, 'failed to load context', error)],
            )
          : this.evaluateRule(run, rule, resource, matchRequest);
    } catch (error) {
      ctx.restore();
      return ruleFailure(rule, type, error);
    }
    if (!(pending instanceof Promise)) {
      ctx.restore();
      return pending;
    }
    return pending.catch((error: unknown) => ruleFailure(rule, type, error)).finally(() => ctx.restore());
  }

  /** Preconditions, the exceptions that apply, then the rule type's handler. */
  private evaluateRule(
    run: PolicyRun,
    rule: Rule,
    resource: KubeObject,
    matchRequest: MatchRequest,
  ): MaybePromise<RuleResponse[]> {
    const { compiled, ctx, type } = run;
    const evaluators = compiled.programs.get(rule)?.evaluators ?? INTERPRETER;
    let preconditions;
    try {
      preconditions = evaluators.conditions(rule.preconditions, ctx);
    } catch (error) {
      return [ruleError(rule, type, 'failed to evaluate preconditions', error)];
    }
    if (!preconditions.passed) {
      const message = ['preconditions not met', preconditions.message].filter(Boolean).join('; ');
      return [ruleResponse(rule, type, 'skip', message)];
    }
    // Kyverno's invokeRuleHandler looks exceptions up only now, after context and preconditions
    // (Kyverno <= 1.10 matched them first); the handler then skips the rule when one matches.
    const exceptions = matchingExceptions(
      this.deps.exceptions?.() ?? NO_EXCEPTIONS,
      compiled.key,
      rule.name,
      matchRequest,
      ctx,
    );
    const ruleRun: RuleRun = {
      rule,
      ctx,
      request: run.request,
      resource,
      context: run.loading,
      foreachValues: valuesFor(run.options.foreachValues, compiled.policy.metadata.name, rule.name),
      evaluators,
    };
    return run.handle(ruleRun, exceptions);
  }
}

/** A rule that threw: an error response, unless the evaluation's deadline passed (that ends it all). */
function ruleFailure(rule: Rule, type: RuleType, error: unknown): RuleResponse[] {
  if (error instanceof EvaluationDeadlineExceeded) throw error;
  return [ruleResponse(rule, type, 'error', errorMessage(error))];
}

/** Whether an UPDATE's old object is to be checked for the same violation (see `violatedBefore`). */
function mayAllowExistingViolation(run: RuleRun, response: RuleResponse): boolean {
  const { request, rule } = run;
  if (request.operation !== 'UPDATE' || !request.oldResource) return false;
  const validation = rule.validate;
  if (response.failureAction !== 'Enforce' || validation?.allowExistingViolations === false) return false;
  return validation?.pattern !== undefined || validation?.anyPattern !== undefined || Boolean(validation?.podSecurity);
}

/** Request contexts by request object; requests are never modified once evaluation starts. */
const requestContexts = new WeakMap<ResourceRequest, { ctx: EvaluationContext; sizes: SizeMemo; error?: unknown }>();

function exceptionSkip(rule: Rule, type: RuleType, exceptions: readonly PolicyException[]): RuleResponse {
  const keys = exceptions.map(exceptionKey);
  const response = ruleResponse(rule, type, 'skip', `rule is skipped due to policy exception ${keys.join(', ')}`);
  response.exceptions = keys;
  return response;
}

/** Values for a rule, falling back to the rule it was generated from for autogen copies. */
function valuesFor<T>(
  lookup: ((policy: string, rule: string) => T | undefined) | undefined,
  policyName: string,
  ruleName: string,
): T | undefined {
  if (!lookup) return undefined;
  return lookup(policyName, ruleName) ?? lookup(policyName, ruleName.replace(AUTOGEN_PREFIX, ''));
}

function appliesToNamespace(compiled: CompiledPolicy, request: ResourceRequest): boolean {
  if (!compiled.namespace) return true;
  return [request.resource, request.oldResource].every(
    (object) => !object || object.metadata?.namespace === compiled.namespace,
  );
}

function toMatchRequest(request: ResourceRequest, resource: KubeObject): MatchRequest {
  return {
    resource,
    operation: request.operation,
    user: request.user,
    namespaceLabels: request.namespaceLabels,
    subresource: request.subresource,
    // Every matcher reads the kind this way: worked out once per policy, not per rule.
    requestKind: request.requestKind ?? gvkOf(resource),
  };
}

/** A policy's response about the request's resource before any rule result is added. */
export function emptyPolicyResponse(compiled: CompiledPolicy, request: ResourceRequest): PolicyResponse {
  const policy = compiled.policy;
  const resource = request.resource ?? request.oldResource;
  return {
    policy: { name: policy.metadata.name, namespace: compiled.namespace, kind: policy.kind },
    resource: {
      apiVersion: resource?.apiVersion ?? '',
      kind: resource?.kind ?? '',
      name: resource?.metadata?.name ?? '',
      namespace: resource?.metadata?.namespace,
    },
    rules: [],
    validationFailureAction:
      compiled.failureActions.policy ??
      policyFailureAction(policy, {
        namespace: resource?.metadata?.namespace,
        namespaceLabels: request.namespaceLabels,
      }),
  };
}
