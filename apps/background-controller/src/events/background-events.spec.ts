import { describe, expect, it } from 'vitest';
import {
  backgroundFailedEvent,
  backgroundSuccessEvent,
  resourceGeneratedEvent,
  successEventAllowed,
} from './background-events';

const policy = { kind: 'ClusterPolicy', name: 'add-labels' };
const pod = { apiVersion: 'v1', kind: 'Pod', namespace: 'default', name: 'web' };

describe('successEventAllowed (the ConfigMap successEventActions)', () => {
  const generated = backgroundSuccessEvent(policy, pod, 'generate');
  const mutated = backgroundSuccessEvent(policy, pod, 'mutate');

  it('lets every Event through when no action is listed', () => {
    expect(successEventAllowed(generated, [])).toBe(true);
    expect(successEventAllowed(mutated, [])).toBe(true);
  });

  it('keeps only the success Events whose action is listed', () => {
    expect(successEventAllowed(mutated, ['Resource Mutated'])).toBe(true);
    expect(successEventAllowed(generated, ['Resource Mutated'])).toBe(false);
    expect(successEventAllowed(generated, ['Resource Generated', 'Resource Passed'])).toBe(true);
  });

  it('never filters failures nor the action-less note on a generated object', () => {
    expect(successEventAllowed(backgroundFailedEvent(policy, 'r', pod, 'boom'), ['Resource Mutated'])).toBe(true);
    expect(successEventAllowed(resourceGeneratedEvent('add-labels', 'r', pod), ['Resource Mutated'])).toBe(true);
  });
});
