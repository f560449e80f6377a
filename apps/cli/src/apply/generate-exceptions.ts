import { stringify } from 'yaml';
import { formatDuration, type JsonObject, type JsonValue } from '@edict/foundation';

/** Kyverno's default `--generated-exception-ttl`: 30 days. */
export const DEFAULT_EXCEPTION_TTL_NANOS = 30n * 24n * 3_600_000_000_000n;

interface ReportedResource {
  kind?: string;
  name?: string;
  namespace?: string;
}

/**
 * `apply --generate-exceptions`: a PolicyException (kyverno.io/v2beta1) for each failing result of the
 * cluster policies' report (namespaced Policies get none, as in Kyverno), named
 * `<policy>-<rule>-<namespace>-<resource>`. An autogen rule's exception also covers the Pod (and for a
 * CronJob the Job) it was generated from, by the pod controller's name followed by `-*`. A positive TTL
 * becomes the `cleanup.kyverno.io/ttl` label; Pod Security controls of the result become
 * `spec.podSecurity` with image tags and digests replaced by `*`. Each exception is printed after a
 * `---` line, as YAML or (`--output-format json`) compact JSON.
 */
export function renderExceptions(
  clusterReport: JsonObject | undefined,
  ttlNanos: bigint,
  format: 'yaml' | 'json',
): string {
  const results = (clusterReport?.results ?? []) as JsonObject[];
  let out = '';
  for (const result of results) {
    if (result.result !== 'fail') continue;
    const policy = String(result.policy ?? '');
    const rule = String(result.rule ?? '');
    for (const resource of (result.resources ?? []) as ReportedResource[]) {
      const exception = exceptionFor(policy, rule, resource, ttlNanos, result.properties as JsonObject | undefined);
      // Kyverno marshals the typed object: JSON keeps the Go fields' order, YAML sorts the keys.
      const text =
        format === 'json'
          ? JSON.stringify(exception) + '\n'
          : stringify(sortKeys(exception), { lineWidth: 0, indentSeq: false });
      out += `---\n${text}\n`;
    }
  }
  return out;
}

function exceptionFor(
  policy: string,
  rule: string,
  resource: ReportedResource,
  ttlNanos: bigint,
  properties: JsonObject | undefined,
): JsonObject {
  const kind = resource.kind ?? '';
  const name = resource.name ?? '';
  const namespace = resource.namespace ?? '';
  const kinds = [kind];
  const names = [name];
  const rules = [rule];
  if (rule.startsWith('autogen-')) {
    if (kind === 'CronJob') {
      kinds.push('Job', 'Pod');
      rules.push(rule.replace(/autogen-cronjob-/g, 'autogen-'), rule.slice('autogen-cronjob-'.length));
    } else {
      kinds.push('Pod');
      rules.push(rule.slice('autogen-'.length));
    }
    names.push(`${name}-*`);
  }
  const metadata: JsonObject = { name: [policy, rule, namespace, name].join('-'), creationTimestamp: null };
  if (ttlNanos > 0n) metadata.labels = { 'cleanup.kyverno.io/ttl': formatDuration(ttlNanos) };
  const spec: JsonObject = {
    match: { all: [{ resources: { kinds, names, namespaces: [namespace] } }] },
    exceptions: [{ policyName: policy, ruleNames: rules }],
  };
  const podSecurity = podSecurityControls(properties);
  if (podSecurity) spec.podSecurity = podSecurity;
  return { kind: 'PolicyException', apiVersion: 'kyverno.io/v2beta1', metadata, spec };
}

function sortKeys(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys(value[key])]),
  );
}

/** The result's `controlsJSON` property (Pod Security controls) as exception entries, or undefined. */
function podSecurityControls(properties: JsonObject | undefined): JsonObject[] | undefined {
  const raw = properties?.controlsJSON;
  if (typeof raw !== 'string') return undefined;
  let controls: unknown;
  try {
    controls = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (!Array.isArray(controls)) return undefined;
  return controls.map((control: { name?: unknown; images?: unknown }) => {
    const entry: JsonObject = { controlName: String(control?.name ?? '') };
    if (Array.isArray(control?.images))
      entry.images = control.images.map((image) => String(image).replace(/[:@].*/, '*'));
    return entry;
  });
}
