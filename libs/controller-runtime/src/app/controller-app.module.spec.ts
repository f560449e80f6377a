import { Injectable, Module } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { Counter, Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LeaderService } from '@edict/leader';
import { PolicyCache } from '@edict/policy';
import { CONTROLLER_ENVIRONMENT, ControllerBaseConfig, loadConfig } from '../config/controller-config';
import { startHttpController, type RunningHttpController } from '../run/start-http-controller';
import { startTestCluster, testControllerSettings, type TestCluster } from '../testing';
import { PolicyReadiness } from '../health/policy-readiness';
import { ControllerAppModule } from './controller-app.module';

class SampleConfig extends ControllerBaseConfig {
  override leaseName = 'sample-controller';
}

const SAMPLE_CONFIG = Symbol('SAMPLE_CONFIG');

/** A feature: its own metrics and a readiness switch, reading the app's config from the core module. */
@Injectable()
class SampleFeature {
  readonly registry = new Registry();
  ready = false;
  constructor(
    private readonly indicators: HealthIndicatorService,
    readonly leader: LeaderService,
  ) {
    new Counter({ name: 'sample_total', help: 'a sample counter', registers: [this.registry] }).inc();
  }

  check() {
    const check = this.indicators.check('sample');
    return this.ready ? check.up() : check.down({ message: 'not yet' });
  }
}

@Module({ providers: [SampleFeature], exports: [SampleFeature] })
class SampleModule {}

describe('ControllerAppModule', () => {
  let cluster: TestCluster;
  let running: RunningHttpController;
  const get = async (path: string) => {
    const answer = await fetch(`http://127.0.0.1:${running.port}${path}`);
    return { status: answer.status, body: await answer.text() };
  };

  beforeAll(async () => {
    cluster = await startTestCluster();
    const config = loadConfig(
      { what: 'sample', type: SampleConfig, environment: CONTROLLER_ENVIRONMENT, names: () => ({}) },
      {},
      testControllerSettings(cluster) as Partial<SampleConfig>,
    );
    running = await startHttpController(
      'Sample',
      ControllerAppModule.forRoot({
        config,
        configToken: SAMPLE_CONFIG,
        policies: true,
        features: [SampleModule],
        readiness: {
          inject: [SampleFeature, PolicyReadiness],
          useFactory: (feature: SampleFeature, policies: PolicyReadiness) => [
            () => feature.check(),
            () => policies.check(),
          ],
        },
        metrics: { inject: [SampleFeature], useFactory: (feature: SampleFeature) => [feature.registry] },
      }),
      { host: '127.0.0.1', port: 0 },
      { logger: false },
    );
    await running.app.get(PolicyCache).waitForSync(5_000);
  });

  afterAll(async () => {
    await running?.stop();
    await cluster?.stop();
  });

  it('gives the features the config under its token and the cluster modules', () => {
    expect(running.app.get(SAMPLE_CONFIG)).toBeInstanceOf(SampleConfig);
    expect(running.app.get(SampleFeature).leader).toBeInstanceOf(LeaderService);
  });

  it('answers /healthz while the app runs, and /readyz with the readiness checks given', async () => {
    expect((await get('/healthz')).status).toBe(200);
    const unready = await get('/readyz');
    expect(unready.status).toBe(503);
    expect(JSON.parse(unready.body)).toMatchObject({
      error: { sample: { status: 'down', message: 'not yet' } },
      details: { policies: { status: 'up' } },
    });
    running.app.get(SampleFeature).ready = true;
    expect((await get('/readyz')).status).toBe(200);
  });

  it('serves the registries given on /metrics', async () => {
    const metrics = await get('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.body).toContain('sample_total 1');
  });
});
