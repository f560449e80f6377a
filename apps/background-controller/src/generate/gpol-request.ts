/**
 * A `cel-generate` UpdateRequest, as Kyverno's CEL generate controller processes it
 * (pkg/background/gpol): for each rule context, the trigger read again (or the admission
 * request's object), the GeneratingPolicy the request names (`name` or `namespace/name`) run on it
 * with the admission request the webhook kept, and the downstream written (generateForTrigger).
 * Every failure is collected (`gpol <policy> failed: ...`) and fails the request, which is retried;
 * the objects written go to `status.generatedResources`. A failed evaluation emits Kyverno's
 * PolicyError Event on the policy; written objects their PolicyApplied Events when the ConfigMap's
 * `generateSuccessEvents` is on. Rule contexts asking to delete downstream are synchronize's work.
 */
import type { UpdateRequestResourceSpec, UpdateRequestSpec } from '@edict/admission';
import type { CompiledGeneratingPolicy } from '@edict/cel-policies';
import { errorMessage, type KubeObject } from '@edict/foundation';
import {
  backgroundFailedEvent,
  backgroundSuccessEvent,
  GENERATE_EVENT_SOURCE,
  identityOf,
  resourceGeneratedEvent,
  type PolicyIdentity,
} from '../events/background-events';
import { admissionRequestOf, backgroundRequest, resolveTrigger } from '../update-requests/background-request';
import type { RuleWorkDeps, RuleWorkOutcome } from '../update-requests/rule-work';
import { ruleContextsOf } from '../update-requests/update-request';
import { generateForTrigger, type GpolGenerateDeps, type TriggerGeneration } from './gpol-generate';

/** What the gpol branch reads besides the rule work's dependencies. */
export interface GpolRequestDeps extends Omit<GpolGenerateDeps, 'cluster'> {
  /** The GeneratingPolicy a request names (`name` or `namespace/name`), from the CEL policy cache. */
  generatingPolicy(key: string): CompiledGeneratingPolicy | undefined;
  /** Reports what one generation came to about its trigger (Kyverno's generate report); never throws. */
  reportGeneration?(requestKey: string, generation: GeneratedFor): Promise<void>;
  /** Counts one evaluation (Kyverno's generating policy metrics). */
  onGeneration?(compiled: CompiledGeneratingPolicy, generation: TriggerGeneration, seconds: number): void;
}

/** One generation with what it ran on, for reports. */
export interface GeneratedFor {
  readonly compiled: CompiledGeneratingPolicy;
  readonly trigger: KubeObject;
  readonly generation: TriggerGeneration;
  /** Whether the request came from an admission review (the report's `process`). */
  readonly admission: boolean;
}

export async function generateForCelRequest(
  spec: UpdateRequestSpec,
  requestKey: string,
  deps: Pick<RuleWorkDeps, 'cluster' | 'emit' | 'generateSuccessEvents' | 'namespaceLabels'>,
  gpol: GpolRequestDeps,
): Promise<RuleWorkOutcome> {
  const key = spec.policy;
  const failures: string[] = [];
  const generated: UpdateRequestResourceSpec[] = [];
  for (const context of ruleContextsOf(spec)) {
    if (context.deleteDownstream) continue;
    const compiled = gpol.generatingPolicy(key);
    if (!compiled) {
      failures.push(`gpol ${key} failed: policy ${key} not found`);
      continue;
    }
    let trigger: KubeObject;
    try {
      trigger = await resolveTrigger(spec, context.trigger ?? spec.resource, deps.cluster, { preferCluster: true });
    } catch (error) {
      failures.push(`gpol ${key} failed: failed to fetch trigger resource: ${errorMessage(error)}`);
      continue;
    }
    const admission = admissionRequestOf(spec) !== undefined;
    const request = admission
      ? backgroundRequest(spec, trigger, await deps.namespaceLabels(trigger.metadata?.namespace))
      : undefined;
    const started = performance.now();
    const generation = await generateForTrigger(compiled, trigger, { ...gpol, cluster: deps.cluster }, request);
    gpol.onGeneration?.(compiled, generation, (performance.now() - started) / 1000);
    const policy = identityOfPolicy(compiled);
    const written = generation.generated.map(resourceSpec);
    generated.push(...written);
    if (generation.error !== undefined) {
      failures.push(`gpol ${key} failed: ${generation.error}`);
      deps.emit(
        GENERATE_EVENT_SOURCE,
        backgroundFailedEvent(policy, compiled.name, identityOf(trigger), generation.error),
      );
    } else if (generation.result?.status === 'pass' && deps.generateSuccessEvents()) {
      for (const object of written) {
        deps.emit(GENERATE_EVENT_SOURCE, backgroundSuccessEvent(policy, object, 'generate'));
        deps.emit(GENERATE_EVENT_SOURCE, resourceGeneratedEvent(key, compiled.name, object));
      }
    }
    if (generation.result) await gpol.reportGeneration?.(requestKey, { compiled, trigger, generation, admission });
  }
  return failures.length > 0 ? { error: failures.join('; '), generated } : { generated };
}

function identityOfPolicy(compiled: CompiledGeneratingPolicy): PolicyIdentity {
  const uid = compiled.policy.metadata?.uid;
  return {
    apiVersion: compiled.policy.apiVersion ?? 'policies.kyverno.io/v1',
    kind: compiled.kind,
    name: compiled.name,
    ...(compiled.namespace !== undefined ? { namespace: compiled.namespace } : {}),
    ...(typeof uid === 'string' ? { uid } : {}),
  };
}

function resourceSpec(object: KubeObject): UpdateRequestResourceSpec {
  return {
    apiVersion: object.apiVersion ?? '',
    kind: object.kind ?? '',
    ...(object.metadata?.namespace ? { namespace: object.metadata.namespace } : {}),
    name: object.metadata?.name ?? '',
  };
}
