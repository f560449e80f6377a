import type { JsonValue, KubeObject } from '../json';
import { extractImages, imagesAsJson } from '../images';
import { matchingExceptions, exceptionsForRule, exceptionKey } from '../exceptions';
import { loadContextEntries } from '../context-entries';
import { ruleMatches, type MatchRequest } from '../match';
import type { PolicyException, Rule } from '../policy/types';
import { validatePodSecurity } from '../validate/validate-pod-security';
import { validateResource } from '../validate/validate-resource';
import type { RuleRun } from '../validate/rule-run';
import { EvaluationContext } from '../variables';
import { compilePolicy, type CompiledPolicy } from './compile';
import { checkConditions } from './conditions';
import { failureActionFor } from './failure-action';
import type { Clock, ContextLoaders, ResourceLoader } from './loaders';
import { errorMessage, ruleError, ruleResponse } from './responses';
import type { PolicyResponse, ResourceRequest, RuleResponse } from './types';

export type { CompiledPolicy } from './compile';

/** Values injected by the caller instead of loading them (Kyverno CLI values files). */
export interface EvaluationOptions {
  /** Variables for one rule; the engine asks with the rule's name and, for autogen copies, the original name. */
  ruleValues?(policyName: string, ruleName: string): Record<string, JsonValue> | undefined;
  /** Per-iteration values for foreach loops of one rule, by loop variable name. */
  foreachValues?(policyName: string, ruleName: string): Record<string, JsonValue[]> | undefined;
  /** Variables for every rule. */
  globalValues?: Record<string, JsonValue>;
}

export interface EngineDependencies {
  loaders?: ContextLoaders;
  resources?: ResourceLoader;
  clock?: Clock;
  /** The PolicyExceptions in force; read on every evaluation so callers can swap them. */
  exceptions?: () => readonly PolicyException[];
}

const AUTOGEN_PREFIX = /^autogen-(cronjob-)?/;

export class Engine {
  constructor(private readonly deps: EngineDependencies = {}) {}

  compile(policy: Parameters<typeof compilePolicy>[0]): CompiledPolicy {
    return compilePolicy(policy);
  }

  /** Runs the policy's validate rules against one request, as Kyverno's engine Validate does. */
  async validate(compiled: CompiledPolicy, request: ResourceRequest, options: EvaluationOptions = {}): Promise<PolicyResponse> {
    const resource = request.resource ?? request.oldResource;
    const response = emptyResponse(compiled, resource);
    if (!resource || !appliesToNamespace(compiled, request)) return response;

    const { ctx, error } = this.createContext(request, resource, options);
    const matchRequest = toMatchRequest(request, resource);
    const applyOne = compiled.policy.spec.applyRules === 'One';
    for (const rule of compiled.validateRules) {
      if (!ruleMatches(rule, matchRequest, compiled.namespace).matched) continue;
      const ruleResult = error
        ? ruleError(rule, 'Validation', 'failed to build the policy context', error)
        : await this.runRule(compiled, rule, request, resource, ctx, options, matchRequest);
      if (!ruleResult) continue;
      ruleResult.failureAction = failureActionFor(compiled.policy, rule, resource.metadata?.namespace);
      response.rules.push(ruleResult);
      if (applyOne && (ruleResult.status === 'pass' || ruleResult.status === 'fail')) break;
    }
    return response;
  }

  /** The request's context; a resource whose images cannot be parsed fails every rule that matches it, as in Kyverno. */
  private createContext(
    request: ResourceRequest,
    resource: KubeObject,
    options: EvaluationOptions,
  ): { ctx: EvaluationContext; error?: unknown } {
    const ctx = EvaluationContext.forRequest(request);
    for (const [name, value] of Object.entries(options.globalValues ?? {})) ctx.add(name, value);
    try {
      const images = imagesAsJson(extractImages(resource));
      if (Object.keys(images).length > 0) ctx.add('images', images);
    } catch (error) {
      return { ctx, error };
    }
    return { ctx };
  }

  private async runRule(
    compiled: CompiledPolicy,
    rule: Rule,
    request: ResourceRequest,
    resource: KubeObject,
    ctx: EvaluationContext,
    options: EvaluationOptions,
    matchRequest: MatchRequest,
  ): Promise<RuleResponse | undefined> {
    const policyName = compiled.policy.metadata.name;
    const values = valuesFor(options.ruleValues, policyName, rule.name);
    ctx.checkpoint();
    try {
      for (const [name, value] of Object.entries(values ?? {})) ctx.add(name, value);
      try {
        await loadContextEntries(rule.context, ctx, {
          loaders: this.deps.loaders,
          provided: new Set(Object.keys(values ?? {})),
        });
      } catch (error) {
        return ruleError(rule, 'Validation', 'failed to load context', error);
      }
      let preconditions;
      try {
        preconditions = checkConditions(rule.preconditions, ctx);
      } catch (error) {
        return ruleError(rule, 'Validation', 'failed to evaluate preconditions', error);
      }
      if (!preconditions.passed) {
        const message = ['preconditions not met', preconditions.message].filter(Boolean).join('; ');
        return ruleResponse(rule, 'Validation', 'skip', message);
      }
      const exceptions = matchingExceptions(
        exceptionsForRule(this.deps.exceptions?.() ?? [], compiled.key, rule.name),
        matchRequest,
        ctx,
      );
      const run: RuleRun = {
        rule,
        ctx,
        request,
        resource,
        context: { loaders: this.deps.loaders },
        foreachValues: valuesFor(options.foreachValues, policyName, rule.name),
      };
      if (rule.validate?.podSecurity) return validatePodSecurity(run, exceptions);
      if (exceptions.length > 0) return exceptionSkip(rule, exceptions);
      return await validateResource(run);
    } catch (error) {
      return ruleResponse(rule, 'Validation', 'error', errorMessage(error));
    } finally {
      ctx.restore();
    }
  }
}

function exceptionSkip(rule: Rule, exceptions: readonly PolicyException[]): RuleResponse {
  const keys = exceptions.map(exceptionKey);
  const response = ruleResponse(rule, 'Validation', 'skip', `rule is skipped due to policy exception ${keys.join(', ')}`);
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
    requestKind: request.requestKind,
  };
}

function emptyResponse(compiled: CompiledPolicy, resource: KubeObject | undefined): PolicyResponse {
  const policy = compiled.policy;
  return {
    policy: { name: policy.metadata.name, namespace: compiled.namespace, kind: policy.kind },
    resource: {
      apiVersion: resource?.apiVersion ?? '',
      kind: resource?.kind ?? '',
      name: resource?.metadata?.name ?? '',
      namespace: resource?.metadata?.namespace,
    },
    rules: [],
    validationFailureAction: failureActionFor(policy, undefined, resource?.metadata?.namespace),
  };
}
