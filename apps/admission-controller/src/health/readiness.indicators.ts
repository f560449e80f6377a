/**
 * What "ready" means for the webhook: not shutting down, a valid serving certificate, the policy
 * cache and configuration synced, and a TLS call to our own port that trusts only our CA succeeds
 * (proving the certificate served is the one the webhook configurations' caBundle accepts).
 */
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Inject, Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { HealthIndicatorService } from '@nestjs/terminus';
import { TlsMaterial } from '@edict/cert';
import { CONTROLLER_CONFIG } from '../config/tokens';
import type { ControllerConfig } from '../config/controller-config';
import { LifecycleState } from '../lifecycle/lifecycle-state';

@Injectable()
export class ReadinessIndicators {
  constructor(
    @Inject(CONTROLLER_CONFIG) private readonly settings: ControllerConfig,
    private readonly indicators: HealthIndicatorService,
    private readonly lifecycle: LifecycleState,
    private readonly material: TlsMaterial,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  lifecycleState() {
    const check = this.indicators.check('lifecycle');
    return this.lifecycle.isShuttingDown() ? check.down({ message: 'shutting down' }) : check.up();
  }

  certificate() {
    const check = this.indicators.check('certificate');
    const snapshot = this.material.current();
    if (!snapshot) return check.down({ message: this.material.lastError() ?? 'no serving certificate yet' });
    const notAfter = snapshot.leaf.notAfter;
    if (notAfter.getTime() <= Date.now())
      return check.down({ message: 'the serving certificate has expired', notAfter });
    return check.up({ notAfter, serialNumber: snapshot.leaf.serialNumber });
  }

  async webhookTls() {
    const check = this.indicators.check('webhook');
    const snapshot = this.material.current();
    const server = this.adapterHost.httpAdapter?.getHttpServer() as
      { address(): AddressInfo | string | null } | undefined;
    const address = server?.address();
    if (!snapshot || !snapshot.caBundlePem || !address || typeof address === 'string')
      return check.down({ message: 'the webhook server is not serving TLS yet' });
    try {
      await this.probe(address.port, snapshot.caBundlePem);
      return check.up();
    } catch (error) {
      return check.down({ message: `TLS call to the webhook port failed: ${(error as Error).message}` });
    }
  }

  private probe(port: number, ca: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const request = httpsRequest(
        {
          host: '127.0.0.1',
          port,
          path: '/health/liveness',
          method: 'GET',
          ca,
          servername: `${this.settings.serviceName}.${this.settings.namespace}.svc`,
          agent: false,
          timeout: this.settings.selfCheckTimeoutMs,
        },
        (response) => {
          response.resume();
          response.on('end', () =>
            response.statusCode === 200 ? resolve() : reject(new Error(`answered ${response.statusCode}`)),
          );
        },
      );
      request.on('timeout', () => request.destroy(new Error(`no answer within ${this.settings.selfCheckTimeoutMs}ms`)));
      request.on('error', reject);
      request.end();
    });
  }
}
