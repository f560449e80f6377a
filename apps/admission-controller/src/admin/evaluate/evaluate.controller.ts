/** `POST /admin/evaluate`: what the webhooks would answer for a resource or an AdmissionReview, rule by rule. */
import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiExtraModels,
  ApiGatewayTimeoutResponse,
  ApiOkResponse,
  ApiOperation,
  ApiPayloadTooLargeResponse,
  ApiTags,
  ApiTooManyRequestsResponse,
  getSchemaPath,
} from '@nestjs/swagger';
import { AdmissionReviewBodyDto, EvaluateResourceDto, EvaluationDto } from './evaluate.dto';
import { EvaluateService } from './evaluate.service';

@ApiTags('admin')
@Controller('admin/evaluate')
export class EvaluateController {
  constructor(private readonly evaluation: EvaluateService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Evaluate a resource or an AdmissionReview against the loaded policies',
    description:
      'Runs the mutating then the validating webhook paths exactly as the webhooks decide (MutatingPolicies after ' +
      'the classic mutation; what GeneratingPolicies would generate and whether DeletingPolicies would delete ' +
      'the object are returned too), with no side ' +
      'effects (no reports, update requests, events or metrics). The body is an AdmissionReview, ' +
      '`{resource, operation?, oldResource?, userInfo?, namespaceLabels?, subResource?, dryRun?}`, ' +
      'or a bare Kubernetes object (evaluated as a CREATE).',
  })
  @ApiExtraModels(EvaluateResourceDto, AdmissionReviewBodyDto)
  @ApiBody({
    schema: {
      oneOf: [
        { $ref: getSchemaPath(EvaluateResourceDto) },
        { $ref: getSchemaPath(AdmissionReviewBodyDto) },
        { type: 'object', description: 'A Kubernetes object', additionalProperties: true },
      ],
    },
  })
  @ApiOkResponse({ type: EvaluationDto })
  @ApiBadRequestResponse({ description: 'The body is not usable; the message names the field' })
  @ApiPayloadTooLargeResponse({ description: 'Above the body size limit (EDICT_MAX_BODY_BYTES)' })
  @ApiTooManyRequestsResponse({ description: 'Every evaluation slot is taken by reviews' })
  @ApiGatewayTimeoutResponse({ description: "Did not finish within the webhook's default deadline" })
  evaluate(@Body() body: unknown): Promise<EvaluationDto> {
    return this.evaluation.evaluate(body);
  }
}
