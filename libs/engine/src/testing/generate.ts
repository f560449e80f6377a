import { type JsonObject, type KubeObject, type LabelSelector, matchesLabelSelector } from '@edict/foundation';
import type { ResourceLoader } from '../core/loaders';
import type { Operation } from '../core/types';
import type { Generation, Rule } from '../policy/types';
import type { RuleRun } from '../validate/rule-run';
import { EvaluationContext } from '../variables';
import type { GeneratingPolicy } from '../generate/types';

/** Test fixtures for the generate specs. */

export function generateRule(generate: Generation, name = 'gen'): Rule {
  return { name, match: { any: [{ resources: { kinds: ['Namespace'] } }] }, generate };
}

export function runFor(rule: Rule, resource: KubeObject, operation: Operation = 'CREATE'): RuleRun {
  const request = operation === 'DELETE' ? { oldResource: resource, operation } : { resource, operation };
  return { rule, ctx: EvaluationContext.forRequest(request), request, resource, context: {} };
}

export function namespace(name: string, labels?: Record<string, string>, data?: JsonObject): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name, uid: `uid-${name}`, ...(labels ? { labels } : {}) },
    ...(data ?? {}),
  };
}

export const clusterPolicy: GeneratingPolicy = { kind: 'ClusterPolicy', metadata: { name: 'my-policy' } };

/** A loader over a fixed set of objects, recording its calls. */
export class FakeLoader implements ResourceLoader {
  readonly calls: string[] = [];
  constructor(
    private readonly objects: KubeObject[],
    private readonly options: { ignoreSelector?: boolean; fail?: string } = {},
  ) {}

  async get(
    apiVersion: string,
    kind: string,
    namespace: string | undefined,
    name: string,
  ): Promise<KubeObject | undefined> {
    this.calls.push(`get ${apiVersion} ${kind} ${namespace ?? '-'} ${name}`);
    if (this.options.fail) throw new Error(this.options.fail);
    return this.objects.find(
      (o) =>
        (apiVersion === '' || o.apiVersion === apiVersion) &&
        o.kind === kind &&
        (o.metadata.namespace ?? undefined) === namespace &&
        o.metadata.name === name,
    );
  }

  list(apiVersion: string, kind: string, namespace?: string, labelSelector?: JsonObject): KubeObject[] {
    this.calls.push(`list ${apiVersion} ${kind} ${namespace ?? '-'} ${JSON.stringify(labelSelector ?? null)}`);
    if (this.options.fail) throw new Error(this.options.fail);
    return this.objects.filter(
      (o) =>
        (apiVersion === '' || o.apiVersion === apiVersion) &&
        o.kind === kind &&
        (namespace === undefined || o.metadata.namespace === namespace) &&
        (this.options.ignoreSelector ||
          !labelSelector ||
          matchesLabelSelector(labelSelector as LabelSelector, o.metadata.labels)),
    );
  }

  /** Known kinds only: namespaced when their objects carry a namespace. */
  namespaced(_apiVersion: string, kind: string): boolean | undefined {
    const object = this.objects.find((o) => o.kind === kind);
    return object && object.metadata.namespace !== undefined;
  }
}

/** The labels Kyverno adds for `my-policy`/`gen` on a Namespace trigger named `name`. */
export function kyvernoLabels(trigger: string, rule = 'gen'): Record<string, string> {
  return {
    'app.kubernetes.io/managed-by': 'kyverno',
    'generate.kyverno.io/policy-name': 'my-policy',
    'generate.kyverno.io/policy-namespace': '',
    'generate.kyverno.io/rule-name': rule,
    'generate.kyverno.io/trigger-group': '',
    'generate.kyverno.io/trigger-version': 'v1',
    'generate.kyverno.io/trigger-kind': 'Namespace',
    'generate.kyverno.io/trigger-namespace': '',
    'generate.kyverno.io/trigger-uid': `uid-${trigger}`,
  };
}
