/** Kyverno's resource webhook paths: validate and mutate, each at a `fail` and an `ignore` path. */
import { Body, Controller, HttpCode, Post, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { FailurePolicy } from '@edict/admission';
import { AdmissionService, type ReviewKind } from './admission.service';

@Controller()
export class AdmissionController {
  constructor(private readonly admission: AdmissionService) {}

  @Post('validate/fail')
  @HttpCode(200)
  validateFail(
    @Body() body: unknown,
    @Query('timeout') timeout: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.answer('validate', 'Fail', body, timeout, reply);
  }

  @Post('validate/ignore')
  @HttpCode(200)
  validateIgnore(
    @Body() body: unknown,
    @Query('timeout') timeout: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.answer('validate', 'Ignore', body, timeout, reply);
  }

  @Post('mutate/fail')
  @HttpCode(200)
  mutateFail(
    @Body() body: unknown,
    @Query('timeout') timeout: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.answer('mutate', 'Fail', body, timeout, reply);
  }

  @Post('mutate/ignore')
  @HttpCode(200)
  mutateIgnore(
    @Body() body: unknown,
    @Query('timeout') timeout: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.answer('mutate', 'Ignore', body, timeout, reply);
  }

  private async answer(
    kind: ReviewKind,
    failurePolicy: FailurePolicy,
    body: unknown,
    timeout: string | undefined,
    reply: FastifyReply,
  ): Promise<unknown> {
    const answer = await this.admission.review(kind, failurePolicy, body, timeout);
    reply.status(answer.status);
    return answer.body;
  }
}
