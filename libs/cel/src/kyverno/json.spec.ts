import { describe, expect, it } from 'vitest';
import { evaluateKyverno } from '@edict/cel/testing';

describe('json library', () => {
  it('unmarshals as Go decodes into any: objects, lists, and numbers as doubles', async () => {
    await expect(evaluateKyverno('json.unmarshal(\'{"a": [1, "x", null], "b": {"c": true}}\')')).resolves.toEqual({
      a: [1, 'x', null],
      b: { c: true },
    });
    await expect(evaluateKyverno('json.unmarshal(\'{"n": 2}\').n + 0.5')).resolves.toBe(2.5);
    await expect(evaluateKyverno('json.unmarshal(\'{"n": 2}\').n + 1')).rejects.toThrow(
      /no such overload|no matching overload/,
    );
  });

  it('reads a JSON document held in an object field', async () => {
    const object = { data: { config: '{"enabled": true}' } };
    await expect(evaluateKyverno('json.unmarshal(object.data.config).enabled', {}, {}, { object })).resolves.toBe(true);
  });

  it('fails on text that is not JSON, with Go wording for empty input', async () => {
    await expect(evaluateKyverno('json.unmarshal("")')).rejects.toThrow('unexpected end of JSON input');
    await expect(evaluateKyverno('json.unmarshal("{oops")')).rejects.toThrow(/invalid JSON/);
  });

  it('marshals as json.Marshal: sorted keys, HTML-safe strings', async () => {
    await expect(evaluateKyverno('json.marshal({"b": 1, "a": ["<x>", 2.5, true, null]})')).resolves.toBe(
      '{"a":["\\u003cx\\u003e",2.5,true,null],"b":1}',
    );
  });

  it('bounds the document it reads', async () => {
    await expect(
      evaluateKyverno(
        'json.unmarshal(object.text)',
        {},
        {},
        { object: { text: `"${'x'.repeat(3 * 1024 * 1024 + 1)}"` } },
      ),
    ).rejects.toThrow(/longer than/);
  });
});
