/** The answer of `GET /admin/webhooks`. */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

const OBJECT = { type: 'object', additionalProperties: true } as const;

export class WebhookConfigurationStateDto {
  @ApiProperty({ enum: ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration'] })
  kind!: string;

  @ApiProperty({ example: 'edict-resource-validating-webhook-cfg' })
  name!: string;

  @ApiProperty({ description: 'The cluster already says everything the desired configuration says' })
  inSync!: boolean;

  @ApiPropertyOptional({ ...OBJECT, description: 'As stored in the cluster (absent: missing)' })
  inCluster?: Record<string, unknown>;

  @ApiPropertyOptional({ ...OBJECT, description: 'As built from the policies now (absent: not wanted)' })
  desired?: Record<string, unknown>;
}

export class ReconcileResultDto {
  @ApiProperty({ format: 'date-time' })
  at!: string;

  @ApiPropertyOptional({
    ...OBJECT,
    description:
      "The pass's outcome: `{status: 'done', complete, created, updated, unchanged, unresolved}` or `{status: 'skipped', reason}`",
  })
  outcome?: Record<string, unknown>;

  @ApiPropertyOptional({ description: 'Why the pass failed' })
  error?: string;
}

export class WebhooksDto {
  @ApiProperty({ description: 'This replica leads (only the leader writes the configurations)' })
  isLeader!: boolean;

  @ApiPropertyOptional({ type: ReconcileResultDto, description: "This replica's last reconcile pass" })
  lastReconcile?: ReconcileResultDto;

  @ApiProperty({
    description: 'The desired set is final: every kind resolved through discovery (else the reconciler only widens)',
  })
  desiredComplete!: boolean;

  @ApiProperty({ type: [String], description: '`policy: kind` selectors discovery did not resolve' })
  unresolved!: string[];

  @ApiPropertyOptional({ description: 'Why no desired set could be built (e.g. no CA bundle yet)' })
  desiredError?: string;

  @ApiProperty({ type: [WebhookConfigurationStateDto] })
  configurations!: WebhookConfigurationStateDto[];
}
