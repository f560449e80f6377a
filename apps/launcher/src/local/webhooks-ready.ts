/**
 * Waiting until the controller's webhooks are really in front of the API server: the leader's
 * reconciler has published configurations for the complete policy set. Asking the reconciler for a
 * pass (idempotent, leader-only) instead of polling for objects tells "published for these
 * policies" apart from "some configuration exists".
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { InMemoryApiServer } from '@edict/apiserver';
import { PolicyCache } from '@edict/policy';
import { WEBHOOK_PATHS, WebhookReconciler, type ReconcileOutcome } from '@edict/webhook-config';
import type { RunningController } from '@edict/admission-controller';
import { errorMessage } from '@edict/foundation';

const POLL_MS = 100;

/** Resolves once a reconcile pass of `controller` (`who`) published the complete set; throws after `timeoutMs`. */
export async function webhooksPublished(
  controller: Pick<RunningController, 'app'>,
  timeoutMs: number,
  who = 'the admission controller',
): Promise<void> {
  const reconciler = controller.app.get(WebhookReconciler, { strict: false });
  const deadline = Date.now() + timeoutMs;
  let last = 'no pass yet';
  for (;;) {
    try {
      const outcome = await reconciler.reconcile();
      if (outcome.status === 'done' && outcome.complete) return;
      last = describe(outcome);
    } catch (error) {
      last = errorMessage(error);
    }
    if (Date.now() >= deadline) {
      throw new Error(`${who} did not publish its webhook configurations in time (${last})`);
    }
    await sleep(POLL_MS);
  }
}

/** Resolves once the controller's policy cache holds every named policy (`name` or `namespace/name`). */
export async function policiesLoaded(
  controller: RunningController,
  keys: readonly string[],
  timeoutMs: number,
): Promise<void> {
  const cache = controller.app.get(PolicyCache, { strict: false });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const loaded = new Set([...cache.policies(), ...cache.invalidPolicies()].map((policy) => policy.key));
    const missing = keys.filter((key) => !loaded.has(key));
    if (missing.length === 0) return;
    if (Date.now() >= deadline) throw new Error(`policies not loaded by the controller in time: ${missing.join(', ')}`);
    await sleep(POLL_MS);
  }
}

/** True when a ValidatingWebhookConfiguration sends policies to the controller's `/policyvalidate`. */
export function policyValidationPublished(apiServer: InMemoryApiServer): boolean {
  return apiServer
    .list('admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration')
    .some((configuration) =>
      ((configuration.webhooks ?? []) as Array<{ clientConfig?: { url?: string; service?: { path?: string } } }>).some(
        ({ clientConfig }) =>
          clientConfig?.service?.path === WEBHOOK_PATHS.policyValidate ||
          (clientConfig?.url ?? '').endsWith(WEBHOOK_PATHS.policyValidate),
      ),
    );
}

function describe(outcome: ReconcileOutcome): string {
  if (outcome.status === 'skipped') return `skipped: ${outcome.reason}`;
  return `incomplete: unresolved kinds ${outcome.unresolved.join(', ') || 'none'}`;
}
