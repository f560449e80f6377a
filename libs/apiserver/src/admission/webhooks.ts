/**
 * Webhook configurations read from stored `admissionregistration.k8s.io/v1` objects, with kube's
 * defaults filled in. Configurations are ordered by name, webhooks by their position (kube's order).
 */
import { isObject, type JsonObject, type JsonValue } from '@edict/foundation';

export interface RuleWithOperations {
  readonly operations: readonly string[];
  readonly apiGroups: readonly string[];
  readonly apiVersions: readonly string[];
  readonly resources: readonly string[];
  /** `*` (default), `Cluster` or `Namespaced`. */
  readonly scope: string;
}

export interface ServiceReference {
  readonly namespace: string;
  readonly name: string;
  readonly path?: string;
  readonly port: number;
}

export interface Webhook {
  readonly kind: 'mutating' | 'validating';
  readonly configurationName: string;
  readonly name: string;
  readonly url?: string;
  readonly service?: ServiceReference;
  /** Decoded PEM text of `clientConfig.caBundle`, if any. */
  readonly caBundle?: string;
  readonly rules: readonly RuleWithOperations[];
  readonly failurePolicy: 'Fail' | 'Ignore';
  readonly matchPolicy: 'Exact' | 'Equivalent';
  readonly namespaceSelector: JsonObject;
  readonly objectSelector: JsonObject;
  readonly sideEffects?: string;
  readonly timeoutSeconds: number;
  readonly reinvocationPolicy: 'Never' | 'IfNeeded';
  readonly matchConditions: readonly JsonObject[];
}

export const DEFAULT_TIMEOUT_SECONDS = 10;

function strings(value: JsonValue | undefined): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

function rulesOf(value: JsonValue | undefined): RuleWithOperations[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isObject).map((rule) => ({
    operations: strings(rule.operations),
    apiGroups: strings(rule.apiGroups),
    apiVersions: strings(rule.apiVersions),
    resources: strings(rule.resources),
    scope: typeof rule.scope === 'string' ? rule.scope : '*',
  }));
}

function serviceOf(value: JsonValue | undefined): ServiceReference | undefined {
  if (!isObject(value)) return undefined;
  return {
    namespace: String(value.namespace ?? ''),
    name: String(value.name ?? ''),
    ...(typeof value.path === 'string' ? { path: value.path } : {}),
    port: typeof value.port === 'number' ? value.port : 443,
  };
}

/** Flattens configurations (already ordered by name) into their webhooks. */
export function webhooksOf(kind: Webhook['kind'], configurations: readonly JsonObject[]): Webhook[] {
  const sorted = [...configurations].sort((a, b) => nameOf(a).localeCompare(nameOf(b)));
  const result: Webhook[] = [];
  for (const configuration of sorted) {
    const hooks = Array.isArray(configuration.webhooks) ? configuration.webhooks.filter(isObject) : [];
    for (const hook of hooks) {
      const clientConfig = isObject(hook.clientConfig) ? hook.clientConfig : {};
      const caBundle =
        typeof clientConfig.caBundle === 'string' && clientConfig.caBundle !== ''
          ? Buffer.from(clientConfig.caBundle, 'base64').toString('utf8')
          : undefined;
      result.push({
        kind,
        configurationName: nameOf(configuration),
        name: String(hook.name ?? ''),
        ...(typeof clientConfig.url === 'string' ? { url: clientConfig.url } : {}),
        ...(serviceOf(clientConfig.service) ? { service: serviceOf(clientConfig.service)! } : {}),
        ...(caBundle ? { caBundle } : {}),
        rules: rulesOf(hook.rules),
        failurePolicy: hook.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
        matchPolicy: hook.matchPolicy === 'Exact' ? 'Exact' : 'Equivalent',
        namespaceSelector: isObject(hook.namespaceSelector) ? hook.namespaceSelector : {},
        objectSelector: isObject(hook.objectSelector) ? hook.objectSelector : {},
        ...(typeof hook.sideEffects === 'string' ? { sideEffects: hook.sideEffects } : {}),
        timeoutSeconds: typeof hook.timeoutSeconds === 'number' ? hook.timeoutSeconds : DEFAULT_TIMEOUT_SECONDS,
        reinvocationPolicy: hook.reinvocationPolicy === 'IfNeeded' ? 'IfNeeded' : 'Never',
        matchConditions: Array.isArray(hook.matchConditions) ? hook.matchConditions.filter(isObject) : [],
      });
    }
  }
  return result;
}

function nameOf(object: JsonObject): string {
  return isObject(object.metadata) ? String(object.metadata.name ?? '') : '';
}
