/**
 * Reads the `kyverno-metrics` ConfigMap once at startup, as Kyverno does (its metrics providers are
 * built from it then). Missing: Kyverno's defaults. Unreadable (no answer within the timeout, an
 * error): the defaults too, with a warning; a key that does not parse keeps its default (logged).
 */
import { Logger } from '@nestjs/common';
import type { KubeResources } from '@edict/kube';
import { errorMessage } from '@edict/foundation';
import { MetricsConfiguration } from './metrics-configuration';

const READ_TIMEOUT_MS = 10_000;

export async function loadMetricsConfiguration(
  resources: KubeResources,
  namespace: string,
  name: string,
): Promise<MetricsConfiguration> {
  const logger = new Logger('MetricsConfiguration');
  try {
    const configMap = await Promise.race([
      resources.find({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name }),
      new Promise<never>((_, reject) => {
        const timer = setTimeout(() => reject(new Error(`no answer in ${READ_TIMEOUT_MS} ms`)), READ_TIMEOUT_MS);
        timer.unref();
      }),
    ]);
    const data = (configMap as { data?: Record<string, string> } | undefined)?.data;
    return new MetricsConfiguration(data, (message) => logger.warn(message));
  } catch (error) {
    logger.warn(`ConfigMap ${namespace}/${name} not read (${errorMessage(error)}): the default metrics settings apply`);
    return MetricsConfiguration.DEFAULT;
  }
}
