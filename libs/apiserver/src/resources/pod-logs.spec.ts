// pods/log on a cluster without kubelets: kube-apiserver's container checks, then the kubelet's refusals.
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '@edict/foundation';
import { ApiError } from '../status';
import { containerLog, requestedContainer } from './pod-logs';

const pod = (spec: JsonObject, status: JsonObject = { phase: 'Pending' }): JsonObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'default' },
  spec,
  status,
});
const single = pod({ containers: [{ name: 'web', image: 'nginx' }] });
const several = pod({
  initContainers: [{ name: 'init', image: 'busybox' }],
  containers: [
    { name: 'a', image: 'nginx' },
    { name: 'b', image: 'nginx' },
  ],
});

function refusal(run: () => unknown): { code: number; reason: string; message: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return { code: error.code, reason: error.reason, message: error.message };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('requestedContainer', () => {
  it('takes the only container, or the one named among init, regular and ephemeral containers', () => {
    expect(requestedContainer(single, 'web', undefined)).toBe('web');
    expect(requestedContainer(several, 'web', 'init')).toBe('init');
    expect(requestedContainer(several, 'web', 'b')).toBe('b');
  });

  it('refuses no name with several containers (listing all, init first), and an unknown name', () => {
    expect(refusal(() => requestedContainer(several, 'web', undefined))).toEqual({
      code: 400,
      reason: 'BadRequest',
      message: 'a container name must be specified for pod web, choose one of: [init a b]',
    });
    expect(refusal(() => requestedContainer(single, 'web', 'sidecar')).message).toBe(
      'container sidecar is not valid for pod web',
    );
    expect(refusal(() => requestedContainer(pod({ containers: [] }), 'web', '')).message).toBe(
      'a container name must be specified for pod web',
    );
  });
});

describe('containerLog', () => {
  it('a container without status is waiting to start: ContainerCreating (400, as kube relays the kubelet)', () => {
    expect(refusal(() => containerLog(single, 'web', 'web', false))).toEqual({
      code: 400,
      reason: 'BadRequest',
      message: 'container "web" in pod "web" is waiting to start: ContainerCreating',
    });
  });

  it("names the waiting reason, with the kubelet's words for image pulls", () => {
    const waiting = (reason: string) =>
      pod(single.spec as JsonObject, {
        phase: 'Pending',
        containerStatuses: [{ name: 'web', state: { waiting: { reason } } }],
      });
    expect(refusal(() => containerLog(waiting('CrashLoopBackOff'), 'web', 'web', false)).message).toBe(
      'container "web" in pod "web" is waiting to start: CrashLoopBackOff',
    );
    expect(refusal(() => containerLog(waiting('ErrImagePull'), 'web', 'web', false)).message).toBe(
      `container "web" in pod "web" is waiting to start: image can't be pulled`,
    );
    expect(refusal(() => containerLog(waiting('ImagePullBackOff'), 'web', 'web', false)).message).toBe(
      'container "web" in pod "web" is waiting to start: trying and failing to pull image',
    );
    const stateless = pod(single.spec as JsonObject, { containerStatuses: [{ name: 'web', state: {} }] });
    expect(refusal(() => containerLog(stateless, 'web', 'web', false)).message).toBe(
      'container "web" in pod "web" is waiting to start - no logs yet',
    );
  });

  it('--previous needs a terminated last state; a container that ran has an (empty) log', () => {
    expect(refusal(() => containerLog(single, 'web', 'web', true)).message).toBe(
      'previous terminated container "web" in pod "web" not found',
    );
    const ran = pod(single.spec as JsonObject, {
      phase: 'Running',
      containerStatuses: [{ name: 'web', state: { running: {} }, lastState: { terminated: { exitCode: 1 } } }],
    });
    expect(containerLog(ran, 'web', 'web', false)).toBe('');
    expect(containerLog(ran, 'web', 'web', true)).toBe('');
  });
});
