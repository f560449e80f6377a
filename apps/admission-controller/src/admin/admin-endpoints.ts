/**
 * The debugging endpoints under `/admin` (Swagger at `/docs` describes them), AdminModule's. Registered
 * by the app module only when `adminEndpoints` is on (EDICT_ADMIN_ENDPOINTS). Everything here reads, except
 * `POST /admin/evaluate`, which evaluates without side effects.
 */
import type { Provider, Type } from '@nestjs/common';
import { CertificatesController } from './certificates/certificates.controller';
import { EvaluateController } from './evaluate/evaluate.controller';
import { EvaluateService } from './evaluate/evaluate.service';
import { LeaderController } from './leader/leader.controller';
import { PoliciesController } from './policies/policies.controller';
import { QueuesController } from './queues/queues.controller';
import { WebhookStateService } from './webhooks/webhook-state.service';
import { WebhooksController } from './webhooks/webhooks.controller';

export const ADMIN_CONTROLLERS: Type[] = [
  PoliciesController,
  EvaluateController,
  LeaderController,
  CertificatesController,
  WebhooksController,
  QueuesController,
];

export const ADMIN_PROVIDERS: Provider[] = [EvaluateService, WebhookStateService];
