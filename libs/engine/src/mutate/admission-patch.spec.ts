import { applyPatch, deepClone } from 'fast-json-patch';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@edict/foundation';
import { admissionPatch } from './admission-patch';

const pod: KubeObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', labels: { app: 'web' } },
  spec: { containers: [{ name: 'app', image: 'nginx' }] },
};

describe('admissionPatch', () => {
  it('is empty when nothing changed', () => {
    expect(admissionPatch(pod, deepClone(pod))).toEqual([]);
  });

  it('turns the original into the mutated object', () => {
    const mutated = deepClone(pod) as KubeObject;
    mutated.metadata.labels = { app: 'web', 'team/owner': 'payments' };
    (mutated.spec as { containers: { imagePullPolicy?: string }[] }).containers[0].imagePullPolicy = 'Always';
    delete (mutated.metadata as { name?: string }).name;
    const patch = admissionPatch(pod, mutated);
    expect(patch).toContainEqual({ op: 'add', path: '/metadata/labels/team~1owner', value: 'payments' });
    expect(applyPatch(deepClone(pod), patch).newDocument).toEqual(mutated);
  });
});
