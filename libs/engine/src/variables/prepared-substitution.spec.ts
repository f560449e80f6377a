import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '@edict/foundation';
import { EvaluationContext } from './context';
import { prepareSubstitution, substituteVariables } from './substitute';

const pod: JsonObject = { kind: 'Pod', metadata: { name: 'web', labels: { app: 'nginx' } }, spec: { x: '{{ y }}' } };

function context(operation: string): EvaluationContext {
  const ctx = new EvaluationContext();
  ctx.add('request', { operation, object: pod, oldObject: { ...pod, metadata: { name: 'old' } } });
  ctx.setOperation(operation);
  ctx.add('y', 'why');
  return ctx;
}

/** Both ways of substituting, as a value or as the error message thrown. */
function outcomes(value: JsonValue, ctx: EvaluationContext): unknown[] {
  const settle = (run: () => JsonValue) => {
    try {
      return run();
    } catch (error) {
      return `threw ${(error as Error).message}`;
    }
  };
  return [settle(() => prepareSubstitution(value)(ctx)), settle(() => substituteVariables(value, ctx))];
}

describe('prepareSubstitution', () => {
  it('returns a value without variables or references itself, the same object every time', () => {
    const pattern = { spec: { '=(hostPID)': 'false' } };
    expect(prepareSubstitution(pattern)(context('CREATE'))).toBe(pattern);
  });

  it('gives what substituteVariables gives, errors included', () => {
    const values: JsonValue[] = [
      '{{ request.object.metadata.name }}',
      "{{ request.operation || 'BACKGROUND' }}",
      '{{ request.object.metadata.missing }}',
      '{{ request.object.spec }}',
      'name: {{ request.object.metadata.name }}',
      '{{ request.object.metadata.{{ y }} }}',
      '{{@}}',
      '$(./x)',
      { a: '{{ y }}' },
      null,
    ];
    for (const operation of ['CREATE', 'DELETE']) {
      for (const value of values) {
        const [prepared, interpreted] = outcomes(value, context(operation));
        expect(prepared, `${JSON.stringify(value)} on ${operation}`).toEqual(interpreted);
      }
    }
  });

  it('reads request.oldObject on DELETE', () => {
    expect(prepareSubstitution('{{ request.object.metadata.name }}')(context('DELETE'))).toBe('old');
  });
});
