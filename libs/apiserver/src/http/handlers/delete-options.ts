/** DeleteOptions from a delete's body and query, checked as kube checks them. */
import { isObject, type JsonValue } from '@edict/foundation';
import type { DeleteOptions, PropagationPolicy } from '../../resources/write-options';
import { invalid } from '../../status';

const POLICIES: readonly string[] = ['Background', 'Foreground', 'Orphan'];

export function deleteOptions(body: JsonValue | undefined, dryRun: boolean, query: URLSearchParams): DeleteOptions {
  const options = isObject(body) ? body : {};
  const preconditions = isObject(options.preconditions) ? options.preconditions : undefined;
  const bodyDryRun = Array.isArray(options.dryRun) && options.dryRun.includes('All');
  const requested = options.propagationPolicy ?? query.get('propagationPolicy') ?? undefined;
  const orphan = options.orphanDependents === true || query.get('orphanDependents') === 'true';
  if (requested !== undefined && (typeof requested !== 'string' || !POLICIES.includes(requested))) {
    throw invalid({ group: 'meta.k8s.io', kind: 'DeleteOptions', name: '' }, [
      {
        reason: 'FieldValueNotSupported',
        field: 'propagationPolicy',
        message: `Unsupported value: ${JSON.stringify(requested)}: supported values: "Foreground", "Background", "Orphan"`,
      },
    ]);
  }
  const propagationPolicy = (requested as PropagationPolicy | undefined) ?? (orphan ? 'Orphan' : undefined);
  return {
    dryRun: dryRun || bodyDryRun,
    ...(propagationPolicy ? { propagationPolicy } : {}),
    ...(preconditions
      ? {
          preconditions: {
            ...(typeof preconditions.resourceVersion === 'string'
              ? { resourceVersion: preconditions.resourceVersion }
              : {}),
            ...(typeof preconditions.uid === 'string' ? { uid: preconditions.uid } : {}),
          },
        }
      : {}),
  };
}
