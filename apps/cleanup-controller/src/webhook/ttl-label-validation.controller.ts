/**
 * Kyverno's `/verifyttl` webhook: objects created or updated with a `cleanup.kyverno.io/ttl` label
 * are always admitted; a value that is no TTL gets Kyverno's warning back, naming why.
 */
import { Body, Controller, HttpCode, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { allow, parseAdmissionReview, reviewResponse } from '@edict/admission';
import { isObject } from '@edict/foundation';
import { TTL_LABEL, ttlLabelProblem } from '../ttl/ttl-label';

/** The warning of an object's TTL label, if its value is no TTL. */
export function ttlLabelWarning(object: unknown): string | undefined {
  const labels = isObject(object) && isObject(object.metadata) ? object.metadata.labels : undefined;
  const value = isObject(labels) ? labels[TTL_LABEL] : undefined;
  if (typeof value !== 'string') return undefined;
  const problem = ttlLabelProblem(value);
  return problem && `${TTL_LABEL} label value cannot be parsed as any recognizable format (${problem})`;
}

@Controller()
export class TtlLabelValidationController {
  @Post('verifyttl')
  @HttpCode(200)
  verify(@Body() body: unknown, @Res({ passthrough: true }) reply: FastifyReply): unknown {
    const parsed = parseAdmissionReview(body);
    if (!parsed.ok) {
      reply.status(400);
      return { message: parsed.message };
    }
    const { request } = parsed.review;
    const warning = ttlLabelWarning(request.object);
    return reviewResponse(request.uid, allow(warning ? [warning] : []));
  }
}
