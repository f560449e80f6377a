/** Kyverno's cleanup controller webhook path, `/validate`. */
import { Body, Controller, HttpCode, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { CleanupPolicyValidation } from './cleanup-policy-validation.service';

@Controller()
export class CleanupPolicyValidationController {
  constructor(private readonly validation: CleanupPolicyValidation) {}

  @Post('validate')
  @HttpCode(200)
  async validate(@Body() body: unknown, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    const answer = await this.validation.validate(body);
    reply.status(answer.status);
    return answer.body;
  }
}
