import { describe, expect, it } from 'vitest';
import type { Policy } from '../policy/types';
import { Engine } from './engine';

function policy(resourceVersion?: string, operator = 'NotEquals'): Policy {
  return {
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name: 'no-delete', uid: 'u1', ...(resourceVersion ? { resourceVersion } : {}) },
    spec: {
      rules: [
        {
          name: 'check',
          match: { any: [{ resources: { kinds: ['Pod'] } }] },
          preconditions: { all: [{ key: '{{ request.operation }}', operator, value: 'DELETE' }] },
          validate: { message: 'no host PID', pattern: { spec: { '=(hostPID)': 'false' } } },
        },
      ],
    },
  } as Policy;
}

describe('Engine.compile', () => {
  it('prepares every rule when compiling, and none when compilation is off', () => {
    const rules = (engine: Engine) => [...engine.compile(policy()).programs.values()];
    const [program] = rules(new Engine({ compiledPolicies: true }));
    expect(program?.matches).toBeTypeOf('function');
    expect(rules(new Engine({ compiledPolicies: false }))).toEqual([]);
  });

  it('compiles a policy version once, and again when its resourceVersion changes', () => {
    const engine = new Engine();
    const first = engine.compile(policy('1'));
    expect(engine.compile(policy('1'))).toBe(first);
    const changed = engine.compile(policy('2', 'Equals'));
    expect(changed).not.toBe(first);
    expect(changed.policy.spec.rules[0]?.preconditions).toMatchObject({ all: [{ operator: 'Equals' }] });
    expect(engine.compile(policy())).not.toBe(engine.compile(policy()));
  });

  it('gives the same answers compiled and interpreted', async () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'a' }, spec: { hostPID: true } };
    const answers = async (compiledPolicies: boolean) => {
      const engine = new Engine({ compiledPolicies });
      return engine.validate(engine.compile(policy()), { operation: 'CREATE', resource: pod });
    };
    const compiled = await answers(true);
    expect(compiled.rules).toMatchObject([{ status: 'fail', message: expect.stringContaining('/spec/hostPID/') }]);
    expect(compiled).toEqual(await answers(false));
  });
});
