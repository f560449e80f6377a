import { stringify } from 'yaml';
import { isScored, type JsonObject, type JsonValue } from '@edict/engine';
import { type EvaluatedResponse, reportResult } from '@edict/kyverno-test';

/*
 * The policy reports Kyverno's `apply --policy-report` prints (wgpolicyk8s.io/v1alpha2): one merged
 * ClusterPolicyReport for cluster policies, one PolicyReport per namespaced Policy. Keys come out
 * sorted, as Kyverno marshals through JSON.
 */
export function buildPolicyReports(records: readonly EvaluatedResponse[], auditWarn: boolean, now: Date): JsonObject[] {
  const seconds = Math.floor(now.getTime() / 1000);
  const clusterResults: JsonObject[] = [];
  const namespaced = new Map<string, { namespace: string; name: string; results: JsonObject[] }>();
  for (const record of records) {
    const { policy, response, resource } = record;
    const annotations = policy.metadata.annotations ?? {};
    const policyName =
      policy.kind === 'Policy' ? `${policy.metadata.namespace ?? ''}/${policy.metadata.name}` : policy.metadata.name;
    for (const rule of response.rules) {
      const result: JsonObject = {
        message: rule.message,
        policy: policyName,
        resources: [
          compact({
            apiVersion: resource.apiVersion,
            kind: resource.kind,
            name: resource.metadata.name ?? '',
            namespace: resource.metadata.namespace ?? '',
            uid: (resource.metadata.uid as string | undefined) ?? '',
          }),
        ],
        result: reportResult(policy, response, rule, auditWarn),
        rule: rule.name,
        scored: isScored(policy),
        source: 'kyverno',
        timestamp: { nanos: 0, seconds },
      };
      if (annotations['policies.kyverno.io/category']) result.category = annotations['policies.kyverno.io/category'];
      if (annotations['policies.kyverno.io/severity']) result.severity = annotations['policies.kyverno.io/severity'];
      if (rule.properties && Object.keys(rule.properties).length > 0) result.properties = rule.properties;
      if (policy.kind === 'Policy') {
        const key = policyName;
        const report = namespaced.get(key) ?? {
          namespace: policy.metadata.namespace ?? '',
          name: policy.metadata.name,
          results: [],
        };
        report.results.push(result);
        namespaced.set(key, report);
      } else {
        clusterResults.push(result);
      }
    }
  }
  const reports: JsonObject[] = [];
  if (clusterResults.length > 0)
    reports.push(report('ClusterPolicyReport', { creationTimestamp: null, name: 'merged' }, clusterResults));
  for (const { namespace, name, results } of namespaced.values()) {
    reports.push(report('PolicyReport', { creationTimestamp: null, name, namespace }, results));
  }
  return reports;
}

function report(kind: string, metadata: JsonObject, results: JsonObject[]): JsonObject {
  const summary = { error: 0, fail: 0, pass: 0, skip: 0, warn: 0 };
  for (const result of results) summary[result.result as keyof typeof summary]++;
  return { apiVersion: 'wgpolicyk8s.io/v1alpha2', kind, metadata, results, summary };
}

function compact(object: Record<string, string>): JsonObject {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== ''));
}

export function renderReportsYaml(reports: readonly JsonObject[]): string {
  return reports.map((r) => stringify(sortKeys(r), { lineWidth: 0, indentSeq: false })).join('---\n');
}

function sortKeys(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sortKeys((value as JsonObject)[key])]),
    );
  }
  return value;
}
