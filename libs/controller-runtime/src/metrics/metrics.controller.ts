/** `/metrics`: the controller's prom-client registries (given under METRIC_REGISTRIES), one exposition text. */
import { Controller, Get, Header, Inject, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { Registry } from 'prom-client';

export const METRIC_REGISTRIES = Symbol('METRIC_REGISTRIES');

@Controller()
export class MetricsController {
  constructor(@Inject(METRIC_REGISTRIES) private readonly registries: readonly Registry[]) {}

  @Get('metrics')
  @Header('Cache-Control', 'no-store')
  async scrape(@Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    reply.header('Content-Type', this.registries[0]!.contentType);
    // Same exposition format on every registry: the texts are concatenated.
    const texts = await Promise.all(this.registries.map((registry) => registry.metrics()));
    return texts.join('\n');
  }
}
