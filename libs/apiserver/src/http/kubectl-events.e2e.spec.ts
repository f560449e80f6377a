// `kubectl get events` against the server: kube's Event columns, wide and across namespaces.
import { beforeEach, describe, expect, it } from 'vitest';
import { hasKubectl, kubectlAgainstServer, tableRows } from '../testing/kubectl';

const kubectlServer = kubectlAgainstServer();

const kubectl = (...args: string[]): Promise<string> => kubectlServer.session.run(...args);
const ago = (seconds: number): string => new Date(Date.now() - seconds * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
const seen = expect.stringMatching(/^\d+s$/) as unknown as string;

describe.skipIf(!hasKubectl)('kubectl get events', () => {
  beforeEach(() => {
    if (!hasKubectl) return;
    kubectlServer.running.server.create({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'web.17a', namespace: 'default' },
      involvedObject: { kind: 'Pod', name: 'web', namespace: 'default', fieldPath: 'spec.containers{web}' },
      type: 'Normal',
      reason: 'Scheduled',
      message: 'Successfully assigned default/web to node-1',
      source: { component: 'default-scheduler' },
      firstTimestamp: ago(50),
      lastTimestamp: ago(10),
      count: 3,
    });
    kubectlServer.running.server.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } });
    kubectlServer.running.server.create({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'cpol.1', namespace: 'team' },
      eventTime: new Date(Date.now() - 20_000).toISOString().replace('Z', '000Z'),
      regarding: { kind: 'ClusterPolicy', name: 'require-team' },
      note: 'Resource blocked',
      reason: 'PolicyViolation',
      type: 'Warning',
      action: 'Blocked',
      reportingController: 'edict-admission',
      reportingInstance: 'edict-admission-0',
    });
  });

  it('prints LAST SEEN, TYPE, REASON, OBJECT and MESSAGE as kube-apiserver does', async () => {
    expect(tableRows(await kubectl('get', 'events'))).toEqual([
      ['LAST', 'SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE'],
      [seen, 'Normal', 'Scheduled', 'pod/web', 'Successfully', 'assigned', 'default/web', 'to', 'node-1'],
    ]);
    expect(tableRows(await kubectl('get', 'events.events.k8s.io', '-n', 'team'))).toEqual([
      ['LAST', 'SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE'],
      [seen, 'Warning', 'PolicyViolation', 'clusterpolicy/require-team', 'Resource', 'blocked'],
    ]);
  });

  it('-o wide adds SUBOBJECT, SOURCE, FIRST SEEN, COUNT and NAME; -A adds NAMESPACE', async () => {
    const wide = (await kubectl('get', 'events', '-o', 'wide')).split('\n');
    expect(wide[0]).toMatch(
      /^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+SUBOBJECT\s+SOURCE\s+MESSAGE\s+FIRST SEEN\s+COUNT\s+NAME$/,
    );
    expect(wide[1]).toMatch(
      /^\d+s\s+Normal\s+Scheduled\s+pod\/web\s+spec\.containers\{web\}\s+default-scheduler\s+Successfully assigned default\/web to node-1\s+\d+s\s+3\s+web\.17a$/,
    );
    const all = (await kubectl('get', 'events', '-A', '-o', 'wide')).split('\n').filter((line) => line !== '');
    expect(all[0]).toMatch(/^NAMESPACE\s+LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+SUBOBJECT\s+SOURCE\s+MESSAGE/);
    expect(all.slice(1)).toEqual([
      expect.stringMatching(/^default\s+\d+s\s+Normal\s+Scheduled\s+pod\/web\s/),
      expect.stringMatching(
        /^team\s+\d+s\s+Warning\s+PolicyViolation\s+clusterpolicy\/require-team\s+edict-admission, edict-admission-0\s+Resource blocked\s+\d+s\s+1\s+cpol\.1$/,
      ),
    ]);
  });
});
