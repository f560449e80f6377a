import { stringify } from 'yaml';
import { policyReportResult } from '@edict/engine';
import { type JsonObject, type JsonValue } from '@edict/foundation';
import { type EvaluatedResponse, reportResult } from '@edict/kyverno-test';

/*
 * The policy reports Kyverno's `apply --policy-report` prints (wgpolicyk8s.io/v1alpha2): one merged
 * ClusterPolicyReport for cluster policies, one PolicyReport per namespaced Policy. Keys come out
 * sorted, as Kyverno marshals through JSON.
 */
export function buildPolicyReports(records: readonly EvaluatedResponse[], auditWarn: boolean, now: Date): JsonObject[] {
  const clusterResults: JsonObject[] = [];
  const namespaced = new Map<string, { namespace: string; name: string; results: JsonObject[] }>();
  for (const { policy, compiled, response, resource } of records) {
    const reported = {
      apiVersion: resource.apiVersion,
      kind: resource.kind,
      name: resource.metadata.name,
      namespace: resource.metadata.namespace,
      uid: resource.metadata.uid as string | undefined,
    };
    for (const rule of response.rules) {
      const result = {
        ...policyReportResult(compiled, rule, now, reported),
        result: reportResult(policy, response, rule, auditWarn),
      } as unknown as JsonObject;
      if (policy.kind === 'Policy') {
        const report = namespaced.get(compiled.key) ?? {
          namespace: compiled.namespace ?? '',
          name: policy.metadata.name,
          results: [],
        };
        report.results.push(result);
        namespaced.set(compiled.key, report);
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

export function renderReportsYaml(reports: readonly JsonObject[]): string {
  return reports.map((r) => stringify(sortKeys(r), { lineWidth: 0, indentSeq: false })).join('---\n');
}

/** `--output-format json`: each report as indented JSON. */
export function renderReportsJson(reports: readonly JsonObject[]): string {
  return reports.map((r) => JSON.stringify(sortKeys(r), null, 2)).join('\n');
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
