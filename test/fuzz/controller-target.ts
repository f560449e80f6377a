/**
 * The admission controller as the fuzzer's target: the real app (bootstrap's Fastify adapter, body
 * parser, controllers, cache, after-admission work) on an in-memory cluster with the fuzz policies,
 * called through Fastify's inject (no sockets). Errors it logs are collected: a crash the
 * controller caught and logged is still a finding.
 */
import type { LoggerService } from '@nestjs/common';
import { startE2eCluster, type E2eCluster } from '@edict/admission-controller/testing';
import type { RunningController } from '@edict/admission-controller';
import { FUZZ_POLICIES } from './fixed-policies';

export interface InjectAnswer {
  status: number;
  body: string;
}

export class ControllerTarget {
  /** Errors the controller logged since the last `takeErrors()`. */
  private errors: string[] = [];

  private constructor(
    private readonly cluster: E2eCluster,
    private readonly controller: RunningController,
    errors: string[],
  ) {
    this.errors = errors;
  }

  static async start(): Promise<ControllerTarget> {
    const errors: string[] = [];
    const logger: LoggerService = {
      log: () => undefined,
      warn: () => undefined,
      error: (message: unknown, ...rest: unknown[]) => errors.push([message, ...rest].map(String).join(' ')),
    };
    const cluster = await startE2eCluster();
    try {
      // Few reports kept, so a long run does not fill the in-memory API server.
      const controller = await cluster.startReplica({ maxAdmissionReports: 200, reportQueueSize: 100 }, { logger });
      for (const policy of FUZZ_POLICIES) await cluster.createClusterPolicy(policy);
      return new ControllerTarget(cluster, controller, errors);
    } catch (error) {
      await cluster.stop();
      throw error;
    }
  }

  async post(path: string, payload: string): Promise<InjectAnswer> {
    const answer = await this.controller.app.inject({
      method: 'POST',
      url: path,
      payload,
      headers: { 'content-type': 'application/json' },
    });
    return { status: answer.statusCode, body: answer.body };
  }

  takeErrors(): string[] {
    return this.errors.splice(0);
  }

  stop(): Promise<void> {
    return this.cluster.stop();
  }
}
