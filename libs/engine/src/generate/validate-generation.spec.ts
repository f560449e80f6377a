import { describe, expect, it } from 'vitest';
import type { Generation } from '../policy/types';
import { generationError } from './validate-generation';

describe('generationError', () => {
  it('accepts the valid forms', () => {
    expect(
      generationError({ apiVersion: 'v1', kind: 'ConfigMap', name: '{{x}}', namespace: '{{y}}', data: { a: '{{z}}' } }),
    ).toBeUndefined();
    expect(
      generationError({
        apiVersion: 'v1',
        kind: 'Secret',
        name: 's',
        namespace: 'n',
        clone: { namespace: 'a', name: 'b' },
      }),
    ).toBeUndefined();
    expect(
      generationError({ namespace: '{{n}}', cloneList: { namespace: 'a', kinds: ['v1/Secret'] } }),
    ).toBeUndefined();
    expect(
      generationError({
        foreach: [
          { list: 'request.object.x', apiVersion: 'v1', kind: 'ConfigMap', name: 'c', namespace: 'n', data: {} },
        ],
      }),
    ).toBeUndefined();
  });

  it('names every missing field, inside foreach too', () => {
    expect(generationError({ apiVersion: 'v1', data: {} })).toBe(
      'generate.kind: kind can not be empty; generate.name: name can not be empty',
    );
    expect(generationError({ foreach: [{ list: 'x', kind: 'ConfigMap', name: 'c' }] })).toBe(
      'generate.foreach[0].apiVersion: apiVersion can not be empty',
    );
  });

  it('rejects several patterns at once; accepts variables in the source (Kyverno only warns)', () => {
    const both = {
      apiVersion: 'v1',
      kind: 'Secret',
      name: 's',
      cloneList: { kinds: ['v1/Secret'] },
      foreach: [],
    } as Generation;
    expect(generationError(both)).toBe(
      'generate: only one of generate patterns(data, clone, cloneList and foreach) can be specified',
    );
    expect(generationError({ apiVersion: 'v1', kind: '{{k}}', name: 's', data: {} })).toBeUndefined();
    expect(generationError({ apiVersion: 'v1', kind: 'Secret', name: 's', clone: { name: '{{n}}' } })).toBeUndefined();
  });

  it('reports values of the wrong type', () => {
    expect(generationError({ apiVersion: 'v1', kind: ['x'], name: 's' } as unknown as Generation)).toBe(
      'generate.kind: expected a string',
    );
    expect(generationError({ namespace: 'n', cloneList: { kinds: 'v1/Secret' } } as unknown as Generation)).toBe(
      'generate.cloneList.kinds: expected a list of strings',
    );
    expect(generationError({ foreach: {} } as unknown as Generation)).toBe('generate.foreach: expected a list');
    expect(generationError('nope' as unknown as Generation)).toBe('generate: expected an object');
  });

  it('answers the same object from its cache', () => {
    const generation: Generation = { data: {} };
    const first = generationError(generation);
    expect(generationError(generation)).toBe(first);
  });
});
