// LeaderModule in Nest applications against the in-memory API server: three replicas, discovered
// leader providers, release on shutdown, lease contents, and option validation.
import { Injectable, type INestApplicationContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { InMemoryApiServer, kubeconfigFor } from '@edict/apiserver';
import * as k8s from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  LeaderModule,
  LeaderProvider,
  LeaderService,
  LEADER_OPTIONS,
  resolveLeaderOptions,
  type LeaderAware,
  type ResolvedLeaderOptions,
  type StopReason,
} from './index';
import { InMemoryLease } from './testing';

const timings = { leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 250 };

@Injectable()
@LeaderProvider()
class Reconciler implements LeaderAware {
  readonly log: string[] = [];
  signal?: AbortSignal;
  onStartedLeading(signal: AbortSignal): void {
    this.signal = signal;
    this.log.push('start');
  }
  onStoppedLeading(reason: StopReason): void {
    this.log.push(`stop:${reason}:${this.signal?.aborted}`);
  }
}

let server: InMemoryApiServer;
let kubeConfig: k8s.KubeConfig;
const apps: INestApplicationContext[] = [];

beforeAll(async () => {
  server = new InMemoryApiServer();
  const { url } = await server.start({ host: '127.0.0.1', port: 0 });
  kubeConfig = new k8s.KubeConfig();
  kubeConfig.loadFromString(kubeconfigFor({ server: url }));
});
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
  try {
    server.delete('coordination.k8s.io/v1', 'Lease', 'edict-leader', 'default');
  } catch {
    // not created
  }
});
afterAll(async () => {
  await server.stop();
});

async function replica(identity: string, extra: Record<string, unknown> = {}): Promise<INestApplicationContext> {
  const moduleRef = await Test.createTestingModule({
    imports: [LeaderModule.forRoot({ ...timings, kubeConfig, identity, ...extra })],
    providers: [Reconciler],
  }).compile();
  const app = await moduleRef.init();
  apps.push(app);
  return app;
}

async function until(check: () => boolean, timeoutMs: number): Promise<number> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return Date.now() - start;
}

describe('LeaderModule against the in-memory API server', () => {
  it('three replicas elect exactly one leader; only it runs leader providers', async () => {
    const replicas = await Promise.all(['r1', 'r2', 'r3'].map((id) => replica(id)));
    const services = replicas.map((app) => app.get(LeaderService));
    await until(() => services.some((s) => s.isLeader()), 3_000);
    for (let i = 0; i < 40; i++) {
      expect(services.filter((s) => s.isLeader())).toHaveLength(1);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const leader = services.find((s) => s.isLeader())!;
    for (const s of services) expect(s.leader()).toBe(leader.identity);
    replicas.forEach((app, i) => {
      expect(app.get(Reconciler).log).toEqual(services[i].isLeader() ? ['start'] : []);
    });

    const lease = server.get('coordination.k8s.io/v1', 'Lease', 'edict-leader', 'default')!;
    const spec = lease.spec as Record<string, unknown>;
    expect(spec.holderIdentity).toBe(leader.identity);
    expect(spec.leaseDurationSeconds).toBe(3);
    expect(spec.acquireTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(spec.renewTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(leader.state()).toMatchObject({ isLeader: true, leaseName: 'edict-leader', leaseNamespace: 'default' });
  });

  it('a closed leader stops its providers, releases the lease, and another replica takes over at once', async () => {
    const replicas = await Promise.all(['s1', 's2', 's3'].map((id) => replica(id)));
    const services = replicas.map((app) => app.get(LeaderService));
    await until(() => services.some((s) => s.isLeader()), 3_000);
    const index = services.findIndex((s) => s.isLeader());
    const reconciler = replicas[index].get(Reconciler);
    const closing = replicas[index];
    apps.splice(apps.indexOf(closing), 1);
    const closedAt = Date.now();
    await closing.close();
    expect(reconciler.log).toEqual(['start', 'stop:shutdown:true']);
    const rest = services.filter((_, i) => i !== index);
    await until(() => rest.some((s) => s.isLeader()), timings.leaseDurationMs);
    const handover = Date.now() - closedAt;
    console.log(`[leader] in-process graceful handover (close -> new leader): ${handover} ms`);
    // Released, not expired: a lease left to expire could not be taken before its duration.
    expect(handover).toBeLessThan(timings.leaseDurationMs);
    const next = rest.find((s) => s.isLeader())!;
    expect(next.leaseTransitions()).toBe(1);
    expect(replicas[services.indexOf(next)].get(Reconciler).log).toEqual(['start']);
  });

  it('register() adds work that starts when leading and can be removed', async () => {
    const app = await replica('solo', { autoStart: false });
    const service = app.get(LeaderService);
    const calls: string[] = [];
    const unregister = service.register({
      onStartedLeading: (signal) => {
        calls.push('start');
        signal.addEventListener('abort', () => calls.push(`abort:${(signal.reason as Error).message}`));
      },
    });
    const events: string[] = [];
    service.onEvent((event) => events.push(event.type));
    expect(service.isLeader()).toBe(false);
    service.start();
    await until(() => service.isLeader(), 2_000);
    expect(calls).toEqual(['start']);
    unregister();
    expect(calls).toEqual(['start', 'abort:leadership ended: shutdown']);
    const late: string[] = [];
    service.register({ onStartedLeading: () => void late.push('start') });
    expect(late).toEqual(['start']);
    expect(events).toEqual(['new-leader', 'started-leading']);
  });

  it('forRootAsync takes the KubeConfig through injection', async () => {
    const KUBE = Symbol('KUBE');
    const moduleRef = await Test.createTestingModule({
      imports: [
        LeaderModule.forRootAsync({
          imports: [],
          inject: [KUBE],
          useFactory: (config: k8s.KubeConfig) => ({ ...timings, kubeConfig: config, identity: 'async' }),
        }),
      ],
      providers: [{ provide: KUBE, useValue: kubeConfig }],
    })
      .compile()
      .catch((error: unknown) => error);
    // The factory's inject must resolve in the LeaderModule's scope: provide it through `imports`.
    expect(moduleRef).toBeInstanceOf(Error);

    const { Module } = await import('@nestjs/common');
    @Module({ providers: [{ provide: KUBE, useValue: kubeConfig }], exports: [KUBE] })
    class KubeModule {}
    const ref = await Test.createTestingModule({
      imports: [
        LeaderModule.forRootAsync({
          imports: [KubeModule],
          inject: [KUBE],
          useFactory: (config: k8s.KubeConfig) => ({ ...timings, kubeConfig: config, identity: 'async' }),
        }),
      ],
    }).compile();
    const app = await ref.init();
    apps.push(app);
    expect(app.get<ResolvedLeaderOptions>(LEADER_OPTIONS).identity).toBe('async');
    await until(() => app.get(LeaderService).isLeader(), 2_000);
  });

  it('uses a given lock (fake) instead of the API server', async () => {
    const lease = new InMemoryLease();
    const app = await replica('faked', { lock: lease.lockFor() });
    await until(() => app.get(LeaderService).isLeader(), 1_000);
    expect(lease.current?.record.holderIdentity).toBe('faked');
  });
});

describe('resolveLeaderOptions', () => {
  it('fills client-go defaults and an identity', () => {
    const options = resolveLeaderOptions({ kubeConfig });
    expect(options).toMatchObject({
      leaseName: 'edict-leader',
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      releaseOnShutdown: true,
      watchLease: true,
      autoStart: true,
    });
    expect(options.identity).toMatch(/.+_.+/);
  });

  it('names every bad field', () => {
    expect(() => resolveLeaderOptions({ kubeConfig, leaseName: 'Bad_Name', retryPeriodMs: 0 })).toThrow(
      'LeaderModule options are invalid: leaseName must be a DNS subdomain (lower case, digits, "-", "."); retryPeriodMs must not be less than 1',
    );
    expect(() => resolveLeaderOptions({ kubeConfig, leaseDurationMs: 5_000, renewDeadlineMs: 6_000 })).toThrow(
      'leaseDurationMs must be greater than renewDeadlineMs',
    );
    expect(() => resolveLeaderOptions({})).toThrow('one of resources, kubeConfig or lock is required');
    expect(() => resolveLeaderOptions({ kubeConfig, leaseNamespace: 'a.b' } as never)).toThrow(
      'leaseNamespace must be a DNS label',
    );
    expect(() => resolveLeaderOptions({ kubeConfig, leaseDuration: 3 } as never)).toThrow(
      'property leaseDuration should not exist',
    );
    expect(() => LeaderModule.forRoot({ kubeConfig, identity: '' })).toThrow('identity should not be empty');
  });
});
