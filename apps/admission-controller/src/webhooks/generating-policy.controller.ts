/**
 * Kyverno's GeneratingPolicy webhook paths: `/gpol/<policy>/<policy>...` naming the policies a
 * webhook serves (the shared one names them all, a fine-grained one its own). One wildcard route;
 * the path is parsed here. The review is always allowed; its UpdateRequests are stored first.
 */
import { Body, Controller, HttpCode, Post, Query, Req, Res, type RawBodyRequest } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { parseValidatingPolicyPath } from '@edict/admission';
import { AdmissionService } from './admission.service';
import { arrivalOf } from './arrival';

const PREFIX = '/gpol/';

@Controller('gpol')
export class GeneratingPolicyController {
  constructor(private readonly admission: AdmissionService) {}

  @Post('*')
  @HttpCode(200)
  async generate(
    @Body() body: unknown,
    @Query('timeout') timeout: string | undefined,
    @Req() request: RawBodyRequest<FastifyRequest>,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown> {
    const url = request.url.split('?', 1)[0] ?? '';
    const at = url.indexOf(PREFIX);
    const path = at < 0 ? undefined : parseValidatingPolicyPath(url.slice(at + PREFIX.length));
    // Names only: a GeneratingPolicy has no failure policy of its own (its webhooks are Ignore).
    if (!path || path.failurePolicy !== undefined || !path.names || path.names.length === 0) {
      reply.status(404);
      return { message: `${url} is not a GeneratingPolicy webhook path` };
    }
    const answer = await this.admission.reviewGeneratingPolicies(path.names, body, timeout, arrivalOf(request));
    reply.status(answer.status);
    return answer.body;
  }
}
