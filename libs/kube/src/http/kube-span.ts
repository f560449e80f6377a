/**
 * The span of one API call, as Kyverno's client wrappers name theirs (`KUBE <client>/<kind>/<operation>`,
 * kube.client.* attributes): the client is the API group (`core` for /api), the kind the resource
 * the path names, the operation client-go's verb. Only inside a span, as Kyverno starts them.
 */
import { TRACE_KEYS, type SpanAttributes } from '@edict/foundation';

const OPERATIONS: Readonly<Record<string, [named: string, collection: string]>> = {
  GET: ['Get', 'List'],
  POST: ['Create', 'Create'],
  PUT: ['Update', 'Update'],
  PATCH: ['Patch', 'Patch'],
  DELETE: ['Delete', 'DeleteCollection'],
};

export function kubeSpan(method: string, path: string): { name: string; attributes: SpanAttributes } {
  const segments = path.split('?')[0]!.split('/').filter(Boolean);
  // /api/v1/... or /apis/<group>/<version>/...
  let rest: string[];
  let group: string;
  if (segments[0] === 'api') {
    group = 'core';
    rest = segments.slice(2);
  } else if (segments[0] === 'apis') {
    group = segments[1] ?? '';
    rest = segments.slice(3);
  } else {
    group = 'raw';
    rest = [];
  }
  let namespace = '';
  if (rest[0] === 'namespaces' && rest.length > 2) {
    namespace = rest[1]!;
    rest = rest.slice(2);
  }
  const kind = rest[0] ?? segments[0] ?? '';
  const named = rest.length > 1;
  const [one, many] = OPERATIONS[method.toUpperCase()] ?? [method, method];
  const operation = named ? (rest.length > 2 ? `${one}${capitalize(rest[2]!)}` : one) : many;
  return {
    name: `KUBE ${group}/${kind}/${operation}`,
    attributes: {
      [TRACE_KEYS.kubeClientGroup]: group,
      [TRACE_KEYS.kubeClientKind]: kind,
      [TRACE_KEYS.kubeClientOperation]: operation,
      [TRACE_KEYS.kubeClientNamespace]: namespace,
    },
  };
}

function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}
