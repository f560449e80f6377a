/**
 * Kyverno's GlobalContextEntry checks (the `GlobalContextEntry.Validate` its validating webhook runs,
 * kyverno.io/v2beta1): either `kubernetesResource` or `apiCall`; a resource names its version and
 * resource, and a group unless it is the core `v1`; an apiCall refreshes after more than 0s, has
 * either `service` or `urlPath`, and sends `data` only with POST; each projection has a name other
 * than the entry's and a JMESPath that compiles. The message is the errors in Kubernetes' words
 * (`field: Forbidden: ...`), several of them joined as `[a, b]` as field.ErrorList.ToAggregate does.
 */
import { compileJmesPath } from '@edict/jmespath';
import { parseDuration } from '@edict/foundation';
import type { GlobalContextEntrySpec } from './global-context-store';

/** Longest JMESPath a projection may carry (the webhook compiles it). */
const MAX_JMESPATH_LENGTH = 10_000;

/** The problems, each `field: Type: detail`; empty when the entry is valid. */
export function globalContextEntryErrors(object: {
  metadata?: { name?: string };
  spec?: GlobalContextEntrySpec & { apiCall?: { data?: unknown; method?: string } };
}): string[] {
  const errors: string[] = [];
  const spec = object.spec ?? {};
  const forbidden = (field: string, detail: string) => errors.push(`${field}: Forbidden: ${detail}`);
  const required = (field: string, detail: string) => errors.push(`${field}: Required value: ${detail}`);
  const isResource = spec.kubernetesResource != null;
  const isApiCall = spec.apiCall != null;
  if (isResource === isApiCall)
    forbidden('spec.kubernetesResource', 'A global context entry should either have KubernetesResource or APICall');
  if (spec.kubernetesResource) {
    const { group = '', version = '', resource = '' } = spec.kubernetesResource;
    // Kyverno reports these under `spec.resource`.
    if (group === '' && version !== 'v1') required('spec.resource.group', 'A Resource entry requires a group');
    if (version === '') required('spec.resource.version', 'A Resource entry requires a version');
    if (resource === '') required('spec.resource.resource', 'A Resource entry requires a resource');
  }
  if (spec.apiCall) {
    const call = spec.apiCall;
    // Absent, the CRD's default (10m) applies.
    if (call.refreshInterval !== undefined && (parseDuration(call.refreshInterval) ?? 0) === 0)
      required(
        'spec.apiCall.refreshIntervalSeconds',
        'A Resource entry requires a refresh interval greater than 0 seconds',
      );
    if (!call.service === !call.urlPath)
      forbidden('spec.apiCall.service', 'An External API call should either have Service or URLPath');
    if (call.data != null && call.method !== 'POST')
      forbidden('spec.apiCall.method', 'An External API call with data should have method as POST');
  }
  (spec.projections ?? []).forEach((projection, index) => {
    const at = `spec.projections[${index}]`;
    const { name = '', jmesPath = '' } = projection ?? {};
    if (name === '') required(`${at}.name`, 'A projection entry requires a name');
    if (name === object.metadata?.name)
      required(`${at}.name`, 'A projection entry requires a name different from the global context entry name');
    if (jmesPath === '') required(`${at}.jmesPath`, 'A projection entry requires a JMESPath');
    const problem = jmesPathProblem(jmesPath);
    if (problem) errors.push(`${at}.jmesPath: Invalid value: ${JSON.stringify(jmesPath)}: ${problem}`);
  });
  return [...new Set(errors)];
}

/** The errors as one message (Kyverno's aggregate), or undefined when there are none. */
export function globalContextEntryRefusal(object: Parameters<typeof globalContextEntryErrors>[0]): string | undefined {
  const errors = globalContextEntryErrors(object);
  if (errors.length === 0) return undefined;
  return errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`;
}

function jmesPathProblem(expression: string): string | undefined {
  if (expression.length > MAX_JMESPATH_LENGTH) return `longer than ${MAX_JMESPATH_LENGTH} characters`;
  try {
    compileJmesPath(expression);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}
