import { describe, expect, it } from 'vitest';
import {
  DEFAULT_EVALUATION_LIMITS,
  EvaluationDeadlineExceeded,
  type EvaluationDeadline,
  type KubeObject,
} from '@edict/foundation';
import type { ContextEntry, Policy, Rule } from '../policy/types';
import { Engine, type EngineDependencies } from './engine';
import type { ResourceRequest } from '../core/types';

const podMatch: Rule['match'] = { any: [{ resources: { kinds: ['Pod'] } }] };

function pod(extra: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'shop' },
    spec: { containers: [{ name: 'app', image: 'nginx:1.27' }], ...extra },
  };
}

function policy(rules: Rule[]): Policy {
  return {
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name: 'bounded' },
    spec: { validationFailureAction: 'Enforce', rules },
  };
}

const create = (resource: KubeObject): ResourceRequest => ({ operation: 'CREATE', resource });

function validate(
  rules: Rule[],
  request: ResourceRequest,
  deps: EngineDependencies = {},
  deadline?: EvaluationDeadline,
) {
  const engine = new Engine(deps);
  return engine.validate(engine.compile(policy(rules)), request, { deadline });
}

/** A deadline that expires after it has been asked `answers` times: deterministic, whatever the machine's speed. */
function expiresAfter(answers: number): EvaluationDeadline & { asked: number } {
  return {
    asked: 0,
    expired() {
      return ++this.asked > answers;
    },
  };
}

/** Kyverno's context amplification (CVE-2026-23881): each entry doubles the previous one. */
function doublingEntries(count: number): ContextEntry[] {
  const entries: ContextEntry[] = [{ name: 's0', variable: { value: 'a'.repeat(64) } }];
  for (let i = 1; i <= count; i++) {
    entries.push({ name: `s${i}`, variable: { jmesPath: `join('', [s${i - 1}, s${i - 1}])` } });
  }
  return entries;
}

const denyWhenLong = (name: string, variable: string): Rule => ({
  name,
  match: podMatch,
  validate: {
    deny: { conditions: { any: [{ key: `{{ length(${variable}) }}`, operator: 'GreaterThan', value: 0 }] } },
  },
});

describe('Engine size limits', () => {
  it('ends a context amplification in a rule error, with memory staying flat', async () => {
    // Without the bound the 40th doubling asks for 64 * 2^40 characters: a heap out-of-memory abort.
    const amplified: Rule = { ...denyWhenLong('amplify', 's40'), context: doublingEntries(40) };
    const rssBefore = process.memoryUsage().rss;
    const response = await validate([amplified, denyWhenLong('plain', "'x'")], create(pod()));
    expect(response.rules).toMatchObject([
      {
        name: 'amplify',
        status: 'error',
        // The entries' total passes 2 MiB with s15, whose list of two s14 is built first.
        message: `a multi-select list exceeds the 2 MiB JMESPath result size limit in "join('', [s14, s14])"`,
      },
      { name: 'plain', status: 'fail' },
    ]);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(200 * 1024 * 1024);
  });

  it('bounds a single expression that doubles its value, whatever catches its error', async () => {
    // The doubling happens inside one JMESPath expression, in a foreach whose failing elements
    // are skipped: the size bound still ends the rule in error.
    const rule: Rule = {
      name: 'doubling',
      match: podMatch,
      context: [{ name: 'seed', variable: { value: 'a'.repeat(1024) } }],
      validate: {
        foreach: [
          {
            list: 'request.object.spec.containers',
            deny: {
              conditions: {
                any: [
                  {
                    key: "{{ length(join('', [join('', [join('', [join('', [join('', [join('', [join('', [join('', [join('', [join('', [join('', [seed, seed]), join('', [seed, seed])]), seed]), seed]), seed]), seed]), seed]), seed]), seed]), seed]), seed])) }}",
                    operator: 'GreaterThan',
                    value: 0,
                  },
                ],
              },
            },
          },
        ],
      },
    };
    const lots = pod({
      containers: [
        { name: 'a', image: 'x' },
        { name: 'b', image: 'y' },
      ],
    });
    const small = await validate([rule], create(lots), { limits: { maxResultSize: 8 * 1024 } });
    expect(small.rules).toMatchObject([
      {
        status: 'error',
        message: expect.stringMatching(
          /^a multi-select list exceeds the 8 KiB JMESPath result size limit in "length\(join/,
        ),
      },
    ]);
    const roomy = await validate([rule], create(lots));
    expect(roomy.rules).toMatchObject([{ status: 'fail' }]);
  });

  it('takes its limits from the engine dependencies; zero turns a limit off', async () => {
    const rule: Rule = {
      ...denyWhenLong('entry', 'big'),
      context: [{ name: 'big', variable: { value: 'x'.repeat(300) } }],
    };
    const tight = await validate([rule], create(pod()), { limits: { maxContextSize: 256 } });
    expect(tight.rules[0]).toMatchObject({
      status: 'error',
      message: 'context size limit exceeded: entry big brings the context past the limit of 256 bytes (256 bytes)',
    });
    const off = await validate([rule], create(pod()), { limits: { maxContextSize: 0 } });
    expect(off.rules[0]).toMatchObject({ status: 'fail' });
  });

  it('reads limits given as a function on every evaluation, so a caller can change them', async () => {
    const rule: Rule = {
      ...denyWhenLong('entry', 'big'),
      context: [{ name: 'big', variable: { value: 'x'.repeat(300) } }],
    };
    let limits = { ...DEFAULT_EVALUATION_LIMITS, maxContextSize: 256, maxResultSize: 256 };
    const engine = new Engine({ limits: () => limits });
    const compiled = engine.compile(policy([rule]));
    expect((await engine.validate(compiled, create(pod()))).rules[0]).toMatchObject({ status: 'error' });
    limits = { ...DEFAULT_EVALUATION_LIMITS, maxContextSize: 4096, maxResultSize: 4096 };
    expect((await engine.validate(compiled, create(pod()))).rules[0]).toMatchObject({ status: 'fail' });
  });

  it('counts the entries of each foreach iteration afresh', async () => {
    const rule: Rule = {
      name: 'per-element',
      match: podMatch,
      validate: {
        foreach: [
          {
            list: 'request.object.spec.containers',
            context: [{ name: 'name', variable: { jmesPath: 'element.name' } }],
            deny: { conditions: { any: [{ key: '{{ name }}', operator: 'Equals', value: 'never' }] } },
          },
        ],
      },
    };
    const containers = Array.from({ length: 50 }, (_, i) => ({ name: `c${i}`.padEnd(40, 'x'), image: 'x' }));
    const response = await validate([rule], create(pod({ containers })), { limits: { maxContextSize: 100 } });
    expect(response.rules[0]).toMatchObject({ status: 'pass' });
  });
});

describe('Engine deadline', () => {
  const heavyForeach: Rule = {
    name: 'heavy',
    match: podMatch,
    validate: {
      foreach: [
        {
          list: 'request.object.spec.items',
          deny: { conditions: { any: [{ key: '{{ to_upper(element) }}', operator: 'Equals', value: 'NEVER' }] } },
        },
      ],
    },
  };
  const items = Array.from({ length: 20_000 }, (_, i) => `item-${i}`);

  it('rejects with EvaluationDeadlineExceeded once the deadline has passed, before any rule', async () => {
    const deadline = expiresAfter(0);
    await expect(validate([heavyForeach], create(pod({ items })), {}, deadline)).rejects.toBeInstanceOf(
      EvaluationDeadlineExceeded,
    );
  });

  it('rejects once the deadline has passed even when no rule matches (no context is built for it)', async () => {
    const elsewhere: Rule = { ...heavyForeach, match: { any: [{ resources: { kinds: ['Pod'], names: ['other'] } }] } };
    await expect(validate([elsewhere], create(pod({ items })), {}, expiresAfter(0))).rejects.toBeInstanceOf(
      EvaluationDeadlineExceeded,
    );
    const unhurried = await validate([elsewhere], create(pod({ items })), {}, expiresAfter(Infinity));
    expect(unhurried.rules).toEqual([]);
  });

  it('stops a CPU-bound foreach between iterations instead of running it to the end', async () => {
    const deadline = expiresAfter(5);
    await expect(validate([heavyForeach], create(pod({ items })), {}, deadline)).rejects.toBeInstanceOf(
      EvaluationDeadlineExceeded,
    );
    expect(deadline.asked).toBe(6); // asked once per rule and iteration until it said yes, then never again
    const unhurried = await validate([heavyForeach], create(pod({ items })), {}, expiresAfter(Infinity));
    expect(unhurried.rules[0]).toMatchObject({ status: 'pass' });
  });

  it('stops inside one JMESPath evaluation, even where Kyverno ignores errors (a foreach list)', async () => {
    const rule: Rule = {
      ...heavyForeach,
      validate: {
        foreach: [{ ...heavyForeach.validate!.foreach![0]!, list: "request.object.spec.items[?contains(@, '9')]" }],
      },
    };
    const deadline = expiresAfter(1); // the rule start, then the first look from inside the filter
    await expect(validate([rule], create(pod({ items })), {}, deadline)).rejects.toBeInstanceOf(
      EvaluationDeadlineExceeded,
    );
    expect(deadline.asked).toBe(2);
  });

  it('stops inside a pattern walk', async () => {
    const rule: Rule = {
      name: 'pattern',
      match: podMatch,
      validate: { pattern: { spec: { objects: [{ name: '?*' }] } } },
    };
    const objects = items.map((name) => ({ name }));
    const deadline = expiresAfter(1);
    await expect(validate([rule], create(pod({ objects })), {}, deadline)).rejects.toBeInstanceOf(
      EvaluationDeadlineExceeded,
    );
    expect(deadline.asked).toBe(2);
  });

  it('leaves mutate and generate the same way', async () => {
    const engine = new Engine();
    const mutating = engine.compile(
      policy([{ name: 'm', match: podMatch, mutate: { patchStrategicMerge: { metadata: { labels: { a: 'b' } } } } }]),
    );
    await expect(engine.mutate(mutating, create(pod()), { deadline: expiresAfter(0) })).rejects.toBeInstanceOf(
      EvaluationDeadlineExceeded,
    );
    const generating = engine.compile(
      policy([
        {
          name: 'g',
          match: podMatch,
          generate: { apiVersion: 'v1', kind: 'ConfigMap', name: 'c', namespace: 'shop', data: { data: { a: 'b' } } },
        },
      ]),
    );
    await expect(engine.generate(generating, create(pod()), { deadline: expiresAfter(0) })).rejects.toBeInstanceOf(
      EvaluationDeadlineExceeded,
    );
  });
});
