/**
 * Going away for good (Deployment scaled to zero or deleted): take the webhook configurations
 * along, so the cluster is not left with webhooks nobody answers. A rolling update keeps them.
 * Never blocks the shutdown on an error.
 */
import type { INestApplicationContext, Logger } from '@nestjs/common';
import { errorMessage } from '@edict/foundation';
import { WebhookRemoval } from '@edict/webhook-config';

export async function removeWebhooksIfScaledToZero(app: INestApplicationContext, logger: Logger): Promise<void> {
  try {
    if (await app.get(WebhookRemoval, { strict: false }).removeIfScaledToZero())
      logger.log('scaled to zero: webhook configurations removed');
  } catch (error) {
    logger.warn(`could not remove the webhook configurations: ${errorMessage(error)}`);
  }
}
