// `kubectl logs` for Pods that never ran: kube's refusals, printed by kubectl with a non-zero exit.
import { describe, expect, it } from 'vitest';
import { hasKubectl, kubectlAgainstServer } from '../testing/kubectl';

const kubectlServer = kubectlAgainstServer();

const kubectl = (...args: string[]) => kubectlServer.session.attempt(...args);

const twoContainers = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'pair', namespace: 'default' },
  spec: {
    containers: [
      { name: 'a', image: 'nginx' },
      { name: 'b', image: 'nginx' },
    ],
  },
};

describe.skipIf(!hasKubectl)('kubectl logs', () => {
  it('a Pod that never ran: its container is waiting to start (exit 1)', async () => {
    expect((await kubectl('run', 'web', '--image=nginx')).code).toBe(0);
    expect(await kubectl('logs', 'web')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'Error from server (BadRequest): container "web" in pod "web" is waiting to start: ContainerCreating\n',
    });
  });

  it('an unknown Pod is NotFound, an unknown container BadRequest', async () => {
    // kubectl reads the Pod first, and words the 404 itself; the subresource answers kube's NotFound.
    expect(await kubectl('logs', 'missing')).toMatchObject({
      code: 1,
      stderr: 'error: error from server (NotFound): pods "missing" not found in namespace "default"\n',
    });
    expect(await kubectl('get', '--raw', '/api/v1/namespaces/default/pods/missing/log')).toMatchObject({
      code: 1,
      stderr: 'Error from server (NotFound): pods "missing" not found\n',
    });
    kubectlServer.running.server.create(twoContainers);
    // kubectl 1.32 checks the name against the Pod it read; the server checks it the same way.
    expect(await kubectl('logs', 'pair', '-c', 'c')).toMatchObject({
      code: 1,
      stderr: 'error: container c is not valid for pod pair\n',
    });
    expect(await kubectl('get', '--raw', '/api/v1/namespaces/default/pods/pair/log?container=c')).toMatchObject({
      code: 1,
      stderr: 'Error from server (BadRequest): container c is not valid for pod pair\n',
    });
  });

  it('several containers: kubectl picks the first (saying so); the API wants a name', async () => {
    kubectlServer.running.server.create(twoContainers);
    const logs = await kubectl('logs', 'pair');
    expect(logs.code).toBe(1);
    expect(logs.stderr).toContain('Defaulted container "a" out of: a, b\n');
    expect(logs.stderr).toContain('container "a" in pod "pair" is waiting to start: ContainerCreating');
    const raw = await kubectl('get', '--raw', '/api/v1/namespaces/default/pods/pair/log');
    expect(raw.code).toBe(1);
    expect(raw.stderr).toContain('a container name must be specified for pod pair, choose one of: [a b]');
  });
});
