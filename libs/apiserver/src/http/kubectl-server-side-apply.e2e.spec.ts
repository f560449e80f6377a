// `kubectl apply --server-side` against the server: field managers, a conflict, then --force-conflicts.
import { describe, expect, it } from 'vitest';
import { hasKubectl, kubectlAgainstServer } from '../testing/kubectl';

const kubectlServer = kubectlAgainstServer();

const kubectl = (...args: string[]) => kubectlServer.session.attempt(...args);

const deployment = (replicas: number, image = 'nginx:1'): string => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: ${image}
`;

interface Entry {
  manager: string;
  operation: string;
  apiVersion: string;
  time: string;
  fieldsV1: Record<string, unknown>;
}

async function managedFields(): Promise<Entry[]> {
  const { stdout } = await kubectl('get', 'deployment', 'web', '-o', 'json', '--show-managed-fields');
  return (JSON.parse(stdout) as { metadata: { managedFields: Entry[] } }).metadata.managedFields;
}

describe.skipIf(!hasKubectl)('kubectl apply --server-side', () => {
  it('conflicts on a field kubectl create set, then takes it with --force-conflicts', async () => {
    expect((await kubectl('create', '-f', kubectlServer.session.file('web.yaml', deployment(1)))).code).toBe(0);
    expect(await managedFields()).toEqual([
      expect.objectContaining({ manager: 'kubectl-create', operation: 'Update', apiVersion: 'apps/v1' }),
    ]);

    const path = kubectlServer.session.file('web.yaml', deployment(3));
    const refused = await kubectl('apply', '--server-side', '-f', path);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^error: Apply failed with 1 conflict: conflict with "kubectl-create" using apps\/v1: \.spec\.replicas\nPlease review the fields above/,
    );
    const unchanged = JSON.parse((await kubectl('get', 'deployment', 'web', '-o', 'json')).stdout);
    expect(unchanged.spec.replicas).toBe(1);

    const forced = await kubectl('apply', '--server-side', '--force-conflicts', '-f', path);
    expect(forced).toMatchObject({ code: 0, stdout: 'deployment.apps/web serverside-applied\n' });
    const entries = await managedFields();
    expect(entries.map((entry) => `${entry.manager}/${entry.operation}`)).toEqual([
      'kubectl/Apply',
      'kubectl-create/Update',
    ]);
    const [applied, created] = entries as [Entry, Entry];
    expect(applied.fieldsV1).toEqual({
      'f:spec': {
        'f:replicas': {},
        'f:selector': {},
        'f:template': {
          'f:metadata': { 'f:labels': { 'f:app': {} } },
          'f:spec': { 'f:containers': { 'k:{"name":"web"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
        },
      },
    });
    expect(created.fieldsV1['f:spec']).not.toHaveProperty('f:replicas');
    expect(JSON.parse((await kubectl('get', 'deployment', 'web', '-o', 'json')).stdout).spec.replicas).toBe(3);
  });

  it('shares fields applied with the same value; kubectl patch takes replicas over, and the next apply conflicts', async () => {
    const path = kubectlServer.session.file('web.yaml', deployment(2));
    expect((await kubectl('apply', '--server-side', '-f', path)).code).toBe(0);
    expect((await kubectl('apply', '--server-side', '--field-manager=ci', '-f', path)).code).toBe(0);
    // Sorted by time (to the second), then by name: which comes first depends on the clock.
    expect((await managedFields()).map((entry) => entry.manager).sort()).toEqual(['ci', 'kubectl']);
    expect((await kubectl('patch', 'deployment', 'web', '-p', '{"spec":{"replicas":5}}')).code).toBe(0);
    const refused = await kubectl('apply', '--server-side', '-f', path);
    expect(refused.stderr).toContain(
      'Apply failed with 1 conflict: conflict with "kubectl-patch" using apps/v1: .spec.replicas',
    );
  });

  it('removes what a manager no longer applies, unless another manager set it too', async () => {
    const configMap = (data: string) =>
      kubectlServer.session.file(
        'cm.yaml',
        `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {${data}}\n`,
      );
    expect((await kubectl('apply', '--server-side', '-f', configMap('a: "1", b: "2", c: "3"'))).code).toBe(0);
    expect((await kubectl('apply', '--server-side', '--field-manager=ops', '-f', configMap('c: "3"'))).code).toBe(0);
    expect((await kubectl('apply', '--server-side', '-f', configMap('a: "1"'))).code).toBe(0);
    const live = JSON.parse((await kubectl('get', 'configmap', 'settings', '-o', 'json')).stdout);
    expect(live.data).toEqual({ a: '1', c: '3' });
  });
});
