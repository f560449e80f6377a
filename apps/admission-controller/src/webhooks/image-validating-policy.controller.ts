/**
 * Kyverno's ImageValidatingPolicy webhook paths: `/ivpol/validate/...` and `/ivpol/mutate/...`,
 * each followed by what a ValidatingPolicy path carries (`fail`, `ignore`, the fine-grained
 * `{fail,ignore}/finegrained/<policy>`, or the names of the policies the webhook serves).
 */
import { Body, Controller, HttpCode, Post, Query, Req, Res, type RawBodyRequest } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { parseValidatingPolicyPath } from '@edict/admission';
import { AdmissionService } from './admission.service';
import { arrivalOf } from './arrival';

@Controller('ivpol')
export class ImageValidatingPolicyController {
  constructor(private readonly admission: AdmissionService) {}

  @Post('validate/*')
  @HttpCode(200)
  validate(
    @Body() body: unknown,
    @Query('timeout') timeout: string | undefined,
    @Req() request: RawBodyRequest<FastifyRequest>,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown> {
    return this.review('validate', body, timeout, request, reply);
  }

  @Post('mutate/*')
  @HttpCode(200)
  mutate(
    @Body() body: unknown,
    @Query('timeout') timeout: string | undefined,
    @Req() request: RawBodyRequest<FastifyRequest>,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown> {
    return this.review('mutate', body, timeout, request, reply);
  }

  private async review(
    mode: 'validate' | 'mutate',
    body: unknown,
    timeout: string | undefined,
    request: RawBodyRequest<FastifyRequest>,
    reply: FastifyReply,
  ): Promise<unknown> {
    const url = request.url.split('?', 1)[0] ?? '';
    const prefix = `/ivpol/${mode}/`;
    const at = url.indexOf(prefix);
    const path = at < 0 ? undefined : parseValidatingPolicyPath(url.slice(at + prefix.length));
    if (!path) {
      reply.status(404);
      return { message: `${url} is not an ImageValidatingPolicy webhook path` };
    }
    const answer = await this.admission.reviewImageValidatingPolicies(mode, path, body, timeout, arrivalOf(request));
    reply.status(answer.status);
    return answer.body;
  }
}
