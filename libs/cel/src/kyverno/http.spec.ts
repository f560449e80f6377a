import { describe, expect, it } from 'vitest';
import { evaluateKyverno, FakeHttpPort } from '@edict/cel/testing';
import type { CelHttpPort } from './ports';

const CA = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

describe('http library', () => {
  it('GETs a JSON object and adds statusCode (numbers decode as doubles, as Go decodes JSON)', async () => {
    const http = new FakeHttpPort([{ url: 'https://api.test/flags', body: { enabled: true, count: 3 } }]);
    await expect(evaluateKyverno('http.Get("https://api.test/flags")', { http })).resolves.toEqual({
      enabled: true,
      count: 3,
      statusCode: 200n,
    });
    await expect(evaluateKyverno('http.get("https://api.test/flags").count == 3.0', { http })).resolves.toBe(true);
    expect(http.requests[0]).toEqual({ method: 'GET', url: 'https://api.test/flags', headers: {} });
  });

  it('wraps a non-object answer as {body, statusCode}; a body that is not JSON is null', async () => {
    const http = new FakeHttpPort([
      { url: 'https://api.test/list', body: ['a', 'b'] },
      { url: 'https://api.test/text', statusCode: 503, body: { raw: 'unavailable' } },
    ]);
    await expect(evaluateKyverno('http.Get("https://api.test/list")', { http })).resolves.toEqual({
      body: ['a', 'b'],
      statusCode: 200n,
    });
    await expect(evaluateKyverno('http.Get("https://api.test/text")', { http })).resolves.toEqual({
      body: null,
      statusCode: 503n,
    });
  });

  it('sends headers, and POST/PUT bodies encoded as Go encodes JSON (sorted keys, final newline)', async () => {
    const http = new FakeHttpPort([
      { method: 'POST', url: 'https://api.test/check', body: { allowed: false } },
      { method: 'PUT', url: 'https://api.test/put', body: { ok: true } },
    ]);
    await expect(
      evaluateKyverno(
        'http.Post("https://api.test/check", {"name": "a<b", "count": 2}, {"Authorization": "Bearer t"}).allowed',
        { http },
      ),
    ).resolves.toBe(false);
    expect(http.requests[0]).toEqual({
      method: 'POST',
      url: 'https://api.test/check',
      headers: { Authorization: 'Bearer t' },
      body: '{"count":2,"name":"a\\u003cb"}\n',
    });
    await expect(evaluateKyverno('http.put("https://api.test/put", ["x"]).ok', { http })).resolves.toBe(true);
    expect(http.requests[1]?.body).toBe('["x"]\n');
  });

  it('Client(caBundle) sends later requests with that CA bundle; an empty bundle changes nothing', async () => {
    const http = new FakeHttpPort([{ url: 'https://internal.test/', body: {} }]);
    await evaluateKyverno(`http.Client(${JSON.stringify(CA)}).Get("https://internal.test/")`, { http });
    expect(http.requests[0]?.caBundle).toBe(CA);
    await evaluateKyverno('http.client("").get("https://internal.test/")', { http });
    expect(http.requests[1]).not.toHaveProperty('caBundle');
    await expect(evaluateKyverno('http.Client("not a pem").Get("https://internal.test/")', { http })).rejects.toThrow(
      /failed to parse PEM CA bundle/,
    );
  });

  it("answers a mocked response as it is (Kyverno's CLI apiCallResponses)", async () => {
    const http: CelHttpPort = { send: () => ({ mocked: { body: { allowed: true }, statusCode: 200 } }) };
    await expect(evaluateKyverno('http.Get("https://example.com/config").body.allowed', { http })).resolves.toBe(true);
    await expect(evaluateKyverno('http.Get("https://example.com/config").statusCode == 200.0', { http })).resolves.toBe(
      true,
    );
  });

  it('awaits an asynchronous port', async () => {
    const http: CelHttpPort = { send: async () => ({ statusCode: 200, body: '{"late":1}' }) };
    await expect(evaluateKyverno('http.Get("https://api.test/").late == 1.0', { http })).resolves.toBe(true);
  });

  it('fails the expression, naming the request, when the port fails or is missing', async () => {
    const http: CelHttpPort = {
      send: () => {
        throw new Error('dial tcp: blocked by the egress policy');
      },
    };
    await expect(evaluateKyverno('http.Get("https://api.test/")', { http })).rejects.toThrow(
      'request failed: dial tcp: blocked by the egress policy',
    );
    await expect(evaluateKyverno('http.Get("https://api.test/")', {})).rejects.toThrow(/http is not available/);
  });

  it("refuses http in a namespaced policy unless Kyverno's --allowHTTPInNamespacedPolicies is set", async () => {
    const http = new FakeHttpPort([{ url: 'https://api.test/', body: { ok: true } }]);
    await expect(
      evaluateKyverno('http.Get("https://api.test/").ok', { http }, { policyNamespace: 'team-a' }),
    ).rejects.toThrow(/http calls are not allowed in namespaced policies/);
    expect(http.requests).toHaveLength(0);
    await expect(
      evaluateKyverno(
        'http.Get("https://api.test/").ok',
        { http },
        { policyNamespace: 'team-a', allowHttpInNamespacedPolicies: true },
      ),
    ).resolves.toBe(true);
  });

  it('refuses an answer larger than the response cap', async () => {
    const http = new FakeHttpPort([{ url: 'https://api.test/big', body: { data: 'x'.repeat(2000) } }]);
    await expect(
      evaluateKyverno('http.Get("https://api.test/big")', { http }, { limits: { maxResponseBytes: 1000 } }),
    ).rejects.toThrow(/larger than 1000 bytes/);
    expect(http.calls[0]?.maxResponseBytes).toBe(1000);
  });
});
