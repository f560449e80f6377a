/**
 * Patching through client-node's `KubernetesObjectApi`, whose `patch` defaults to strategic merge
 * (415 from a real API server for custom resources): here the patch type is required.
 * JSON patches cannot go through it (it reads the target from the body), so use
 * `KubeResources.patch(ref, 'json', operations)` for those.
 */
import type { KubernetesObject, KubernetesObjectApi } from '@kubernetes/client-node';
import { toKubeApiError } from '../errors/kube-api-error';
import { PATCH_CONTENT_TYPES } from './patch-types';

export async function patchObject<T extends KubernetesObject>(
  api: KubernetesObjectApi,
  /** apiVersion, kind, metadata.name (and namespace) name the target; the rest is the patch. */
  patch: T,
  type: 'merge' | 'strategic' | 'apply',
  options: { fieldManager?: string; dryRun?: boolean; force?: boolean } = {},
): Promise<T> {
  if (type === 'apply' && !options.fieldManager) throw new TypeError('an apply patch needs a fieldManager');
  try {
    return await api.patch<T>(
      patch,
      undefined,
      options.dryRun ? 'All' : undefined,
      options.fieldManager,
      options.force,
      PATCH_CONTENT_TYPES[type],
    );
  } catch (error) {
    throw toKubeApiError(error) ?? error;
  }
}
