import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@edict/foundation';
import type { CelPolicyExceptionSpec, ValidatingPolicySpec } from '../api/types';
import { compileValidatingPolicy } from '../compile/compile-policy';
import { evaluateValidatingPolicy } from '../evaluate/evaluate-policy';
import { inputFor, matching, pod, validatingPolicy } from '../testing';
import { celPolicyExceptionErrors, compileCelPolicyException } from './compile-exception';

function exception(name: string, spec: CelPolicyExceptionSpec, namespace = 'kyverno'): KubeObject {
  return {
    apiVersion: 'policies.kyverno.io/v1',
    kind: 'PolicyException',
    metadata: { name, namespace },
    spec: spec as unknown as KubeObject['spec'],
  } as KubeObject;
}

const refs = [{ name: 'caps', kind: 'ValidatingPolicy' }];

const capabilities: ValidatingPolicySpec = {
  matchConstraints: matching('', 'v1', 'pods'),
  variables: [{ name: 'allowed', expression: "['CHOWN', 'KILL']" }],
  validations: [
    {
      expression:
        'object.spec.containers.all(c, c.?securityContext.?capabilities.?add.orValue([]).all(cap, cap in variables.allowed || (c.image in exceptions.allowedImages && cap in exceptions.allowedValues)))',
      message: 'capability not allowed',
    },
  ],
};

const withCap = (name: string, image: string, cap: string) =>
  pod(name, 'default', { containers: [{ name: 'c', image, securityContext: { capabilities: { add: [cap] } } }] });

async function run(
  object: KubeObject,
  exceptions: KubeObject[],
  now?: number,
  policy = validatingPolicy('caps', capabilities),
) {
  return evaluateValidatingPolicy(compileValidatingPolicy(policy), inputFor(object), {
    ports: {},
    exceptions: exceptions.map(compileCelPolicyException),
    ...(now !== undefined ? { now: () => now } : {}),
  });
}

describe('CEL PolicyException', () => {
  it('skips the policy for what its match conditions select, naming the exception', async () => {
    const skipping = exception('skip-debug', {
      policyRefs: refs,
      matchConditions: [{ name: 'debug', expression: "object.metadata.name.startsWith('debug-')" }],
    });
    const skipped = await run(withCap('debug-1', 'busybox', 'SYS_ADMIN'), [skipping]);
    expect(skipped?.rules).toEqual([
      {
        name: 'exception',
        type: 'Validation',
        status: 'skip',
        message: 'rule is skipped due to policy exception: kyverno/skip-debug',
        exceptions: ['kyverno/skip-debug'],
      },
    ]);
    expect((await run(withCap('app', 'busybox', 'SYS_ADMIN'), [skipping]))?.rules[0]?.status).toBe('fail');
  });

  it("reports pass when the first matched exception's reportResult says so", async () => {
    const passing = exception('pass-all', { policyRefs: refs, reportResult: 'pass' });
    const skipping = exception('skip-all', { policyRefs: refs });
    expect((await run(withCap('x', 'busybox', 'SYS_ADMIN'), [passing, skipping]))?.rules[0]).toEqual({
      name: 'exception',
      type: 'Validation',
      status: 'pass',
      message: 'rule is passed due to policy exception: kyverno/pass-all, kyverno/skip-all',
      exceptions: ['kyverno/pass-all', 'kyverno/skip-all'],
    });
    expect((await run(withCap('x', 'busybox', 'SYS_ADMIN'), [skipping, passing]))?.rules[0]?.status).toBe('skip');
  });

  it('ignores exceptions for other policies or kinds, and expired ones', async () => {
    const other = exception('other', { policyRefs: [{ name: 'caps', kind: 'NamespacedValidatingPolicy' }] });
    const expired = exception('expired', { policyRefs: refs, expiresAt: '2026-01-01T00:00:00Z' });
    const bad = withCap('x', 'busybox', 'SYS_ADMIN');
    expect((await run(bad, [other, expired], Date.parse('2026-06-01T00:00:00Z')))?.rules[0]?.status).toBe('fail');
    expect((await run(bad, [expired], Date.parse('2025-06-01T00:00:00Z')))?.rules[0]?.status).toBe('skip');
  });

  it('binds allowed images and values for the policy to use instead of skipping it', async () => {
    const allowing = exception('allow-nettools', {
      policyRefs: refs,
      images: ['nettools:1'],
      allowedValues: ['NET_ADMIN'],
    });
    expect((await run(withCap('a', 'nettools:1', 'NET_ADMIN'), [allowing]))?.rules[0]?.status).toBe('pass');
    expect((await run(withCap('b', 'nettools:1', 'SYS_ADMIN'), [allowing]))?.rules[0]?.status).toBe('fail');
    expect((await run(withCap('c', 'busybox', 'NET_ADMIN'), [allowing]))?.rules[0]?.status).toBe('fail');
    expect((await run(withCap('d', 'nettools:1', 'NET_ADMIN'), []))?.rules[0]?.status).toBe('fail');
  });

  it('applies to a NamespacedValidatingPolicy only from its own namespace', async () => {
    const policy = validatingPolicy('caps', capabilities, 'default');
    const ref = [{ name: 'caps', kind: 'NamespacedValidatingPolicy' }];
    const bad = withCap('x', 'busybox', 'SYS_ADMIN');
    expect((await run(bad, [exception('elsewhere', { policyRefs: ref })], undefined, policy))?.rules[0]?.status).toBe(
      'fail',
    );
    expect(
      (await run(bad, [exception('here', { policyRefs: ref }, 'default')], undefined, policy))?.rules[0]?.status,
    ).toBe('skip');
  });

  it('turns an exception condition error into an error under Fail, a non-match under Ignore', async () => {
    const broken = exception('broken', {
      policyRefs: refs,
      matchConditions: [{ name: 'c', expression: 'object.missing.field == 1' }],
    });
    const bad = withCap('x', 'busybox', 'SYS_ADMIN');
    expect((await run(bad, [broken]))?.rules[0]).toMatchObject({ name: 'evaluation', status: 'error' });
    const ignoring = validatingPolicy('caps', { ...capabilities, failurePolicy: 'Ignore' });
    expect((await run(bad, [broken], undefined, ignoring))?.rules[0]?.status).toBe('fail');
  });

  it('reports what is wrong with an exception, by field', () => {
    expect(
      celPolicyExceptionErrors(
        exception('bad', {
          policyRefs: [{ name: '', kind: 'ValidatingPolicy' }],
          matchConditions: [
            { name: 'c', expression: 'object.(' },
            { name: 'c', expression: '1' },
          ],
          reportResult: 'fail' as 'pass',
          expiresAt: 'tomorrow',
        }),
      ).map((error) => error.field),
    ).toEqual([
      'spec.policyRefs[0].name',
      'spec.reportResult',
      'spec.expiresAt',
      'spec.matchConditions[1].name',
      'spec.matchConditions[0].expression',
      'spec.matchConditions[1].expression',
    ]);
    expect(celPolicyExceptionErrors(exception('ok', { policyRefs: refs }))).toEqual([]);
    expect(() => compileCelPolicyException(exception('none', {}))).toThrow(/spec\.policyRefs: Required value/);
  });
});
