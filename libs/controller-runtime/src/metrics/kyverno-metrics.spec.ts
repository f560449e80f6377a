/**
 * Kyverno's complete metric list (every instrument pkg/metrics and its callers create, with the `_total`
 * Kyverno's Prometheus exporter gives a counter), against what Edict registers: each name is
 * registered by some controller's (non-spec) source, or docs/metrics.md lists it under "Not exported"
 * with its reason. The registered names are checked at runtime by the controllers' own specs.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/** Kyverno's metric names (pkg/metrics and the controllers that create instruments themselves). */
const KYVERNO_METRICS = [
  'kyverno_info',
  'kyverno_http_requests_total',
  'kyverno_http_requests_duration_seconds',
  'kyverno_client_queries_total',
  'kyverno_admission_requests_total',
  'kyverno_admission_review_duration_seconds',
  'kyverno_policy_results_total',
  'kyverno_policy_execution_duration_seconds',
  'kyverno_policy_rule_info_total',
  'kyverno_policy_changes_total',
  'kyverno_validating_policy_results_total',
  'kyverno_validating_policy_execution_duration_seconds',
  'kyverno_image_validating_policy_results_total',
  'kyverno_image_validating_policy_execution_duration_seconds',
  'kyverno_mutating_policy_results_total',
  'kyverno_mutating_policy_execution_duration_seconds',
  'kyverno_generating_policy_results_total',
  'kyverno_generating_policy_execution_duration_seconds',
  'kyverno_controller_reconcile_total',
  'kyverno_controller_requeue_total',
  'kyverno_controller_drop_total',
  'kyverno_cleanup_controller_deletedobjects_total',
  'kyverno_cleanup_controller_errors_total',
  'kyverno_deleting_controller_deletedobjects_total',
  'kyverno_deleting_controller_errors_total',
  'kyverno_ttl_controller_deletedobjects_total',
  'kyverno_ttl_controller_errors_total',
  'kyverno_ttl_controller_info',
  'kyverno_breaker_total',
  'kyverno_breaker_drops_total',
  'kyverno_events_dropped_total',
  'kyverno_updaterequest_total',
  'kyverno_policy_exception_info',
  'kyverno_deprecated_api_requests_total',
  'kyverno_legacy_policies_total',
  // pkg/metrics/resource_metrics.go (NewPolicyMetrics, called by no controller).
  'kyverno_policy_processing_duration_seconds',
  'kyverno_rule_evaluation_duration_seconds',
  'kyverno_policy_evaluations_total',
  'kyverno_policy_cache_hits_total',
  'kyverno_policy_cache_misses_total',
  'kyverno_policy_cache_size',
  'kyverno_admission_request_duration_seconds',
  'kyverno_memory_usage_bytes',
  'kyverno_goroutine_count',
  // Kyverno's early Prometheus gauges (pkg/metrics/policyruleresults, policyruleexecutionlatency, admissionreviewlatency).
  'kyverno_policy_rule_results_info',
  'kyverno_policy_rule_execution_latency_milliseconds',
  'kyverno_admission_review_latency_milliseconds',
];

const ROOT = resolve(__dirname, '../../../..');

function sources(directory: string, out: string[] = []): string[] {
  for (const entry of readdirSync(directory)) {
    if (entry === 'node_modules' || entry === 'testing') continue;
    const path = join(directory, entry);
    if (statSync(path).isDirectory()) sources(path, out);
    else if (entry.endsWith('.ts') && !entry.endsWith('.spec.ts')) out.push(readFileSync(path, 'utf8'));
  }
  return out;
}

/** The "Not exported" list of docs/metrics.md: `name` → its reason. */
function notExported(): Map<string, string> {
  const doc = readFileSync(join(ROOT, 'docs', 'metrics.md'), 'utf8');
  const section = doc.split(/^## /m).find((part) => part.startsWith('Not exported'));
  const listed = new Map<string, string>();
  for (const match of (section ?? '').matchAll(/^- `(kyverno_[a-z_]+)`: (.+)$/gm)) listed.set(match[1]!, match[2]!);
  return listed;
}

describe("Kyverno's metrics", () => {
  const code = [...sources(join(ROOT, 'apps')), ...sources(join(ROOT, 'libs'))].join('\n');
  const registered = (name: string) => new RegExp(`['"\`]${name}['"\`]`).test(code);
  const documented = notExported();

  it.each(KYVERNO_METRICS)('%s is exported by Edict, or listed as not applicable with a reason', (name) => {
    if (registered(name)) expect(documented.has(name), `${name} is exported: not under "Not exported"`).toBe(false);
    else
      expect(documented.get(name)?.trim().length ?? 0, `${name}: neither registered nor documented`).toBeGreaterThan(
        10,
      );
  });

  it('lists under "Not exported" only names from Kyverno\'s list', () => {
    for (const name of documented.keys()) expect(KYVERNO_METRICS).toContain(name);
  });
});
