/** Kyverno's `/policyvalidate`, `/exceptionvalidate` and `/globalcontextvalidate` webhook paths. */
import { Body, Controller, HttpCode, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { PolicyValidationService } from './policy-validation.service';

@Controller()
export class PolicyValidationController {
  constructor(private readonly validation: PolicyValidationService) {}

  @Post('policyvalidate')
  @HttpCode(200)
  async policy(@Body() body: unknown, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    const answer = await this.validation.policy(body);
    reply.status(answer.status);
    return answer.body;
  }

  @Post('exceptionvalidate')
  @HttpCode(200)
  async exception(@Body() body: unknown, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    const answer = await this.validation.exception(body);
    reply.status(answer.status);
    return answer.body;
  }

  @Post('globalcontextvalidate')
  @HttpCode(200)
  async globalContextEntry(@Body() body: unknown, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    const answer = await this.validation.globalContextEntry(body);
    reply.status(answer.status);
    return answer.body;
  }
}
