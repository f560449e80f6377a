/** The body and answer of `POST /admin/evaluate`, documented for Swagger. */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { JsonPatchOperation, PolicyResponseKind, RuleStatus, RuleType } from '@edict/engine';
import type { KubeObject } from '@edict/foundation';
import type { EvaluationResult, RuleTrace, UpdateRequestTrace, WebhookPath, WebhookStep } from './evaluate-admission';

const OBJECT = { type: 'object', additionalProperties: true } as const;
const WEBHOOK_PATHS: WebhookPath[] = [
  'mutate/ignore',
  'mutate/fail',
  'validate/ignore',
  'validate/fail',
  'vpol/ignore',
  'vpol/fail',
];

export class UserInfoDto {
  @ApiPropertyOptional({ example: 'alice' })
  username?: string;

  @ApiPropertyOptional()
  uid?: string;

  @ApiPropertyOptional({ type: [String], example: ['system:authenticated'] })
  groups?: string[];

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } })
  extra?: Record<string, string[]>;
}

/** The friendly body: a resource plus what an AdmissionReview would carry around it. */
export class EvaluateResourceDto {
  @ApiPropertyOptional({
    ...OBJECT,
    description: 'The Kubernetes object (required unless operation is DELETE)',
    example: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web', namespace: 'default' },
      spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
    },
  })
  resource?: Record<string, unknown>;

  @ApiPropertyOptional({ ...OBJECT, description: 'The existing object (UPDATE, DELETE)' })
  oldResource?: Record<string, unknown>;

  @ApiPropertyOptional({
    enum: ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'],
    description: 'Default CREATE (DELETE when only oldResource is given)',
  })
  operation?: string;

  @ApiPropertyOptional({ type: UserInfoDto, description: 'The requesting user (default: none)' })
  userInfo?: UserInfoDto;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    description: "Labels of the object's namespace (default: as the cluster has them)",
  })
  namespaceLabels?: Record<string, string>;

  @ApiPropertyOptional({ example: 'status' })
  subResource?: string;

  @ApiPropertyOptional({ description: 'As the request would have it (default false)' })
  dryRun?: boolean;
}

export class AdmissionReviewBodyDto {
  @ApiProperty({ enum: ['admission.k8s.io/v1'] })
  apiVersion!: string;

  @ApiProperty({ enum: ['AdmissionReview'] })
  kind!: string;

  @ApiProperty({ ...OBJECT, description: 'The AdmissionRequest, as the API server sends it' })
  request!: Record<string, unknown>;
}

export class JsonPatchOperationDto {
  @ApiProperty({ enum: ['add', 'remove', 'replace', 'move', 'copy', 'test'] })
  op!: string;

  @ApiProperty({ example: '/metadata/labels/team' })
  path!: string;

  @ApiPropertyOptional({ description: 'Any JSON value' })
  value?: unknown;

  @ApiPropertyOptional()
  from?: string;
}

export class RuleTraceDto implements RuleTrace {
  @ApiProperty({ enum: WEBHOOK_PATHS })
  webhook!: WebhookPath;

  @ApiProperty({
    enum: ['admission', 'audit'],
    description: 'admission: decided before answering; audit: audit-only, evaluated after the answer',
  })
  stage!: 'admission' | 'audit';

  @ApiProperty({ example: 'require-team' })
  policy!: string;

  @ApiProperty({ enum: ['ClusterPolicy', 'Policy', 'ValidatingPolicy', 'NamespacedValidatingPolicy'] })
  policyKind!: PolicyResponseKind;

  @ApiProperty({ example: 'check-team' })
  rule!: string;

  @ApiProperty({ enum: ['Validation', 'Mutation', 'Generation', 'ImageVerify'] })
  type!: RuleType;

  @ApiProperty({ enum: ['pass', 'fail', 'warn', 'error', 'skip'] })
  status!: RuleStatus;

  @ApiProperty()
  message!: string;

  @ApiPropertyOptional({ enum: ['Enforce', 'Audit'] })
  failureAction?: 'Enforce' | 'Audit';

  @ApiPropertyOptional({ type: [String], description: 'PolicyExceptions that skipped the rule' })
  exceptions?: string[];

  @ApiPropertyOptional({ description: "Milliseconds the engine spent on the rule's whole policy" })
  policyDurationMs?: number;

  @ApiPropertyOptional({ type: [JsonPatchOperationDto], description: "Mutation: this rule's own changes" })
  patch?: JsonPatchOperation[];
}

export class WebhookStepDto implements WebhookStep {
  @ApiProperty({ enum: WEBHOOK_PATHS })
  webhook!: WebhookPath;

  @ApiProperty()
  allowed!: boolean;

  @ApiPropertyOptional()
  message?: string;

  @ApiProperty({ type: [String] })
  warnings!: string[];

  @ApiPropertyOptional({ type: [JsonPatchOperationDto] })
  patch?: JsonPatchOperation[];

  @ApiPropertyOptional({ description: 'Why the request skipped policies (resource filters, exclusions)' })
  filtered?: string;

  @ApiProperty({ type: [String], description: 'Policies this path serves for the request, in order' })
  policies!: string[];

  @ApiProperty()
  durationMs!: number;
}

export class UpdateRequestTraceDto implements UpdateRequestTrace {
  @ApiProperty()
  policy!: string;

  @ApiProperty()
  rule!: string;

  @ApiProperty({ enum: ['mutate', 'generate', 'cel-generate'] })
  requestType!: 'mutate' | 'generate' | 'cel-generate';
}

export class EvaluatedRequestDto {
  @ApiProperty({ ...OBJECT, example: { group: '', version: 'v1', kind: 'Pod' } })
  kind!: Record<string, unknown>;

  @ApiProperty({ ...OBJECT, example: { group: '', version: 'v1', resource: 'pods' } })
  resource!: Record<string, unknown>;

  @ApiPropertyOptional()
  subResource?: string;

  @ApiPropertyOptional()
  namespace?: string;

  @ApiPropertyOptional()
  name?: string;

  @ApiProperty({ enum: ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'] })
  operation!: string;

  @ApiProperty({ type: UserInfoDto })
  userInfo!: UserInfoDto;

  @ApiProperty()
  dryRun!: boolean;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    description: 'The namespace labels policies saw',
  })
  namespaceLabels?: Record<string, string>;
}

export class EvaluationDto implements EvaluationResult {
  @ApiProperty({ type: EvaluatedRequestDto, description: 'What was evaluated' })
  request!: EvaluatedRequestDto;

  @ApiProperty({ description: 'Admitted by every webhook path' })
  allowed!: boolean;

  @ApiPropertyOptional({ description: 'The denying path’s message (Kyverno’s format)' })
  message?: string;

  @ApiProperty({ type: [String] })
  warnings!: string[];

  @ApiPropertyOptional({ type: [JsonPatchOperationDto], description: 'One patch for all mutation' })
  patch?: JsonPatchOperation[];

  @ApiPropertyOptional({ ...OBJECT, description: 'The object after mutation (what validation saw), when it changed' })
  patchedResource?: KubeObject;

  @ApiProperty({ type: [WebhookStepDto], description: 'Each webhook path in the order the API server calls them' })
  webhooks!: WebhookStepDto[];

  @ApiProperty({ type: [RuleTraceDto] })
  trace!: RuleTraceDto[];

  @ApiProperty({
    type: [UpdateRequestTraceDto],
    description: 'UpdateRequests the webhook would queue for the background controller (not created here)',
  })
  updateRequests!: UpdateRequestTraceDto[];

  @ApiProperty()
  durationMs!: number;
}
