/**
 * Kyverno's MutatingPolicy webhook paths: `/mpol/fail`, `/mpol/ignore`, the fine-grained
 * `/mpol/{fail,ignore}/finegrained/<policy>`, and `/mpol/<policy>/<policy>...` naming the policies a
 * webhook serves (any failure policy), laid out as the `/vpol/...` ones. One wildcard route; the
 * path is parsed here.
 */
import { Body, Controller, HttpCode, Post, Query, Req, Res, type RawBodyRequest } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { parseValidatingPolicyPath } from '@edict/admission';
import { AdmissionService } from './admission.service';
import { arrivalOf } from './arrival';

const PREFIX = '/mpol/';

@Controller('mpol')
export class MutatingPolicyController {
  constructor(private readonly admission: AdmissionService) {}

  @Post('*')
  @HttpCode(200)
  async mutate(
    @Body() body: unknown,
    @Query('timeout') timeout: string | undefined,
    @Req() request: RawBodyRequest<FastifyRequest>,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown> {
    const url = request.url.split('?', 1)[0] ?? '';
    const at = url.indexOf(PREFIX);
    const path = at < 0 ? undefined : parseValidatingPolicyPath(url.slice(at + PREFIX.length));
    if (!path) {
      reply.status(404);
      return { message: `${url} is not a MutatingPolicy webhook path` };
    }
    const answer = await this.admission.reviewMutatingPolicies(path, body, timeout, arrivalOf(request));
    reply.status(answer.status);
    return answer.body;
  }
}
