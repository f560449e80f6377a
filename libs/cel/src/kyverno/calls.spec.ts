import { describe, expect, it } from 'vitest';
import { deadlineAfter, type EvaluationDeadline } from '@edict/foundation';
import { evaluateKyverno, FakeHttpPort, FakeResourcePort } from '@edict/cel/testing';
import { kyvernoActivation } from './activation';
import { compileCel } from '../compile';

describe('bounds of the library calls of one evaluation', () => {
  it('stops at the call limit, and stays stopped for the rest of the activation', async () => {
    const http = new FakeHttpPort(
      ['1', '2', '3', '4'].map((i) => ({ url: `https://api.test/${i}`, body: { ok: true } })),
    );
    await expect(
      evaluateKyverno(
        '[1, 2, 3, 4].all(i, http.Get("https://api.test/" + string(i)).ok)',
        { http },
        { limits: { maxCalls: 3 } },
      ),
    ).rejects.toThrow(/exceed the limit of 3 per evaluation/);
    expect(http.requests).toHaveLength(3);

    // CEL's || absorbs errors when the other side decides; the limit must not come back open.
    const program = compileCel('http.Get(object.url).ok', { params: false, authorizer: false, kyverno: true }, 'any');
    const activation = {
      ...kyvernoActivation({ http }, { limits: { maxCalls: 1 } }),
      object: { url: 'https://api.test/1' },
    };
    await program.evaluate(activation);
    activation.object = { url: 'https://api.test/2' };
    expect(() => program.evaluate(activation)).toThrow(/exceed the limit of 1/);
    expect(() => program.evaluate(activation)).toThrow(/exceed the limit of 1/);
  });

  it('counts calls of every library together', async () => {
    const http = new FakeHttpPort([{ url: 'https://api.test/', body: {} }]);
    const resources = new FakeResourcePort();
    await expect(
      evaluateKyverno(
        '[http.Get("https://api.test/"), resource.Get("v1", "configmaps", "a", "b"), http.Get("https://api.test/?again")].size()',
        { http, resources },
        { limits: { maxCalls: 2 } },
      ),
    ).rejects.toThrow(/exceed the limit of 2/);
  });

  it('answers a repeated read from the first one, and sends every write', async () => {
    const http = new FakeHttpPort([
      { url: 'https://api.test/', body: { ok: true } },
      { method: 'POST', url: 'https://api.test/', body: { ok: true } },
    ]);
    const resources = new FakeResourcePort();
    await evaluateKyverno(
      '[http.Get("https://api.test/"), http.Get("https://api.test/"), http.Post("https://api.test/", {}), http.Post("https://api.test/", {}), ' +
        'resource.Get("v1", "configmaps", "a", "b"), resource.Get("v1", "configmaps", "a", "b")].size()',
      { http, resources },
      { limits: { maxCalls: 4 } },
    );
    expect(http.requests.map((r) => r.method).sort()).toEqual(['GET', 'POST', 'POST']);
    expect(resources.reads).toHaveLength(1);
  });

  it('refuses calls once the deadline passed, and gives each call a signal for the time left', async () => {
    const http = new FakeHttpPort([{ url: 'https://api.test/', body: {} }]);
    const expired: EvaluationDeadline = { expired: () => true, remainingMs: () => 0 };
    await expect(evaluateKyverno('http.Get("https://api.test/")', { http }, { deadline: expired })).rejects.toThrow(
      /deadline exceeded/,
    );
    expect(http.requests).toHaveLength(0);
    await evaluateKyverno('http.Get("https://api.test/")', { http }, { deadline: deadlineAfter(60_000) });
    expect(http.calls[0]?.signal).toBeInstanceOf(AbortSignal);
    expect(http.calls[0]?.signal?.aborted).toBe(false);
  });
});
