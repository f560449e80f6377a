/**
 * Kyverno's resource webhook paths: validate and mutate, each at a `fail` and an `ignore` path, and
 * under those the fine-grained webhooks of classic policies with their own match conditions
 * (`/validate/ignore/finegrained/<policy>`, `<namespace>/<policy>` for a Policy), answered as
 * Kyverno answers them: by the handler of their failure policy.
 */
import { Body, Controller, HttpCode, Post, Query, Req, Res, type RawBodyRequest } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FailurePolicy } from '@edict/admission';
import { AdmissionService, type ReviewKind } from './admission.service';
import { arrivalOf } from './arrival';

@Controller()
export class AdmissionController {
  constructor(private readonly admission: AdmissionService) {}

  @Post(['validate/fail', 'validate/fail/finegrained/:policy', 'validate/fail/finegrained/:namespace/:policy'])
  @HttpCode(200)
  validateFail(
    @Body() body: unknown,
    @Query('timeout') timeout: string | undefined,
    @Req() request: RawBodyRequest<FastifyRequest>,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.answer('validate', 'Fail', body, timeout, request, reply);
  }

  @Post(['validate/ignore', 'validate/ignore/finegrained/:policy', 'validate/ignore/finegrained/:namespace/:policy'])
  @HttpCode(200)
  validateIgnore(
    @Body() body: unknown,
    @Query('timeout') timeout: string | undefined,
    @Req() request: RawBodyRequest<FastifyRequest>,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.answer('validate', 'Ignore', body, timeout, request, reply);
  }

  @Post(['mutate/fail', 'mutate/fail/finegrained/:policy', 'mutate/fail/finegrained/:namespace/:policy'])
  @HttpCode(200)
  mutateFail(
    @Body() body: unknown,
    @Query('timeout') timeout: string | undefined,
    @Req() request: RawBodyRequest<FastifyRequest>,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.answer('mutate', 'Fail', body, timeout, request, reply);
  }

  @Post(['mutate/ignore', 'mutate/ignore/finegrained/:policy', 'mutate/ignore/finegrained/:namespace/:policy'])
  @HttpCode(200)
  mutateIgnore(
    @Body() body: unknown,
    @Query('timeout') timeout: string | undefined,
    @Req() request: RawBodyRequest<FastifyRequest>,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.answer('mutate', 'Ignore', body, timeout, request, reply);
  }

  private async answer(
    kind: ReviewKind,
    failurePolicy: FailurePolicy,
    body: unknown,
    timeout: string | undefined,
    request: RawBodyRequest<FastifyRequest>,
    reply: FastifyReply,
  ): Promise<unknown> {
    const answer = await this.admission.review(kind, failurePolicy, body, timeout, request.rawBody, arrivalOf(request));
    reply.status(answer.status);
    return answer.body;
  }
}
