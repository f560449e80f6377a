// Apply conflicts worded as kube-apiserver words them.
import { describe, expect, it } from 'vitest';
import { applyConflict } from './conflicts';
import { fieldElement as f } from './field-set';

const replicas = [f('spec'), f('replicas')];
const image = [f('spec'), f('image')];

describe('applyConflict', () => {
  it('one conflict: one line naming the updater with its version, and a FieldManagerConflict cause', () => {
    const error = applyConflict([
      { manager: 'kubectl-client-side-apply', operation: 'Update', apiVersion: 'v1', path: replicas },
    ]);
    expect(error.toStatus()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .spec.replicas',
      reason: 'Conflict',
      details: {
        causes: [
          {
            reason: 'FieldManagerConflict',
            message: 'conflict with "kubectl-client-side-apply" using v1',
            field: '.spec.replicas',
          },
        ],
      },
      code: 409,
    });
  });

  it('several: grouped by manager in order; appliers without a version, subresources named', () => {
    const error = applyConflict([
      { manager: 'zeta', operation: 'Apply', apiVersion: 'apps/v1', path: replicas },
      { manager: 'alpha', operation: 'Update', apiVersion: 'apps/v1', subresource: 'scale', path: replicas },
      { manager: 'zeta', operation: 'Apply', apiVersion: 'apps/v1', path: image },
    ]);
    expect(error.message).toBe(
      [
        'Apply failed with 3 conflicts: conflicts with "alpha" with subresource "scale" using apps/v1:',
        '- .spec.replicas',
        'conflicts with "zeta":',
        '- .spec.replicas',
        '- .spec.image',
      ].join('\n'),
    );
  });
});
