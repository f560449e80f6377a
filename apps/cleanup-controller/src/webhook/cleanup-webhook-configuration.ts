/**
 * The cleanup controller's ValidatingWebhookConfiguration, as Kyverno's cleanup controller
 * publishes it: `<install>-cleanup-validating-webhook-cfg`, one webhook named after its Service
 * (`<service>.<namespace>.svc`) on `/validate`, seeing cleanup policies created and updated, failing
 * closed (failurePolicy Fail) and without side effects. It also sees DeletingPolicies and
 * NamespacedDeletingPolicies, for the permission check classic cleanup policies have.
 *
 * Beside it, Kyverno's TTL webhook: `<install>-ttl-validating-webhook-cfg`, the same webhook name on
 * `/verifyttl`, seeing every object created or updated with a `cleanup.kyverno.io/ttl` label
 * (objectSelector), failing open (Ignore): it only warns about a value that is no TTL.
 *
 * Both are Kyverno's generic webhook controller's: they carry the ConfigMap's `webhookLabels` (the
 * managed-by label wins), `webhookAnnotations` and `matchConditions`; its `webhooks` selectors are
 * the resource webhooks' only.
 */
import { installNames } from '@edict/config';
import {
  clientConfig,
  fixedValidatingWebhook,
  validatingConfiguration,
  type WebhookConfigurations,
  type WebhookEndpoint,
  type WebhookSettings,
} from '@edict/webhook-config';
import type { CleanupConfig } from '../config/cleanup-config';
import { TTL_LABEL } from '../ttl/ttl-label';

export const CLEANUP_VALIDATE_PATH = '/validate';
export const TTL_VALIDATE_PATH = '/verifyttl';
/** Kyverno's default webhook timeout (its cleanup webhook sets none). */
const TIMEOUT_SECONDS = 10;

export function cleanupWebhookConfigurations(
  config: CleanupConfig,
): (caBundlePem: string, settings?: WebhookSettings) => WebhookConfigurations {
  const names = installNames(config.installName);
  const endpoint: WebhookEndpoint = config.webhookUrl
    ? { url: config.webhookUrl }
    : { service: { name: config.serviceName, namespace: config.namespace, port: config.webhookServicePort } };
  const name = `${config.serviceName}.${config.namespace}.svc`;
  return (caBundlePem, settings) => {
    const labels = { ...settings?.webhookLabels, [names.webhookManagedBy.key]: names.webhookManagedBy.value };
    const annotations = settings?.webhookAnnotations;
    const matchConditions = settings?.matchConditions ?? [];
    return {
      validating: [
        validatingConfiguration(
          names.webhookConfigurations.cleanupValidating,
          labels,
          [
            fixedValidatingWebhook({
              name,
              client: clientConfig(
                endpoint,
                Buffer.from(caBundlePem, 'utf8').toString('base64'),
                CLEANUP_VALIDATE_PATH,
              ),
              rules: [
                {
                  apiGroups: ['kyverno.io'],
                  versions: ['v2', 'v2beta1'],
                  resources: ['cleanuppolicies', 'clustercleanuppolicies'],
                },
                {
                  apiGroups: ['policies.kyverno.io'],
                  versions: ['v1', 'v1beta1', 'v1alpha1'],
                  resources: ['deletingpolicies', 'namespaceddeletingpolicies'],
                },
              ],
              failurePolicy: 'Fail',
              timeoutSeconds: TIMEOUT_SECONDS,
              matchConditions,
            }),
          ],
          annotations,
        ),
        validatingConfiguration(
          names.webhookConfigurations.ttlValidating,
          labels,
          [
            {
              ...fixedValidatingWebhook({
                name,
                client: clientConfig(endpoint, Buffer.from(caBundlePem, 'utf8').toString('base64'), TTL_VALIDATE_PATH),
                rules: [{ apiGroups: ['*'], versions: ['*'], resources: ['*'] }],
                failurePolicy: 'Ignore',
                timeoutSeconds: TIMEOUT_SECONDS,
                matchConditions,
              }),
              objectSelector: { matchExpressions: [{ key: TTL_LABEL, operator: 'Exists' }] },
            },
          ],
          annotations,
        ),
      ],
      mutating: [],
    };
  };
}
