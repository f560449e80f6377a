import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { InMemoryApiServer } from '@edict/apiserver';
import { KubeHttpClient, KubeResources } from '@edict/kube';
import { eventually, kubeConfigForUrl } from '@edict/kube/testing';
import { installPolicyCrds } from '@edict/policy/testing';
import { InformerReportCounter } from './report-counter';

/** A pass-through proxy that notes the Accept header of each report list and watch. */
async function recordingProxy(target: string): Promise<{ server: Server; url: string; accepts: string[] }> {
  const accepts: string[] = [];
  const server = createServer((incoming, outgoing) => {
    if (incoming.url?.includes('ephemeralreports')) {
      accepts.push(`${incoming.url.includes('watch=true') ? 'watch' : 'list'} ${incoming.headers.accept ?? ''}`);
    }
    const forwarded = httpRequest(
      target + (incoming.url ?? '/'),
      { method: incoming.method, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 500, answer.headers);
        answer.pipe(outgoing);
      },
    );
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, accepts };
}

describe('InformerReportCounter', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('lists and watches the reports as PartialObjectMetadata and counts them', async () => {
    const api = new InMemoryApiServer({ bookmarkIntervalMs: 100 });
    const { url } = await api.start({ host: '127.0.0.1', port: 0 });
    cleanups.push(() => api.stop());
    installPolicyCrds(api);
    const report = (name: string, namespace?: string) =>
      api.create({
        apiVersion: 'reports.kyverno.io/v1',
        kind: namespace ? 'EphemeralReport' : 'ClusterEphemeralReport',
        metadata: { name, ...(namespace ? { namespace } : {}), labels: { 'audit.kyverno.io/source': 'admission' } },
        spec: { owner: { apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'u' }, results: [] },
      });
    report('before', 'default');
    const proxy = await recordingProxy(url);
    cleanups.push(() => new Promise((resolve) => proxy.server.close(resolve)));
    proxy.server.on('connection', (socket) => cleanups.push(async () => socket.destroy()));

    const counter = new InformerReportCounter(new KubeResources(new KubeHttpClient(kubeConfigForUrl(proxy.url))), {
      source: 'admission',
      watchTimeoutSeconds: 5,
    });
    counter.start();
    cleanups.push(() => counter.stop());
    await counter.waitForSync(5_000);
    expect(counter.current()).toEqual({ count: 1, running: true });
    report('after', 'default');
    report('cluster-wide');
    await eventually(() => counter.current().count === 3, 'the counter to see the new reports');

    const list = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
    const watch = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';
    expect(new Set(proxy.accepts)).toEqual(new Set([`list ${list}`, `watch ${watch}`]));
  });
});
