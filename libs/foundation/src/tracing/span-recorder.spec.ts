import { describe, expect, it } from 'vitest';
import { SpanRecorder } from './span-recorder';

describe('SpanRecorder', () => {
  it('records nested spans with their attributes, times and errors, across awaits', async () => {
    let clock = 1000;
    const recorder = new SpanRecorder(() => clock++);
    await recorder.span('POLICY /a', { 'kyverno.policy.name': 'a', unset: undefined }, async (span) => {
      expect(recorder.inSpan()).toBe(true);
      await recorder.span('RULE r1', { 'kyverno.rule.name': 'r1' }, async () => {
        await Promise.resolve();
      });
      expect(() =>
        recorder.span('RULE r2', {}, () => {
          throw new Error('boom');
        }),
      ).toThrow('boom');
      span.setAttributes({ extra: true });
    });
    expect(recorder.inSpan()).toBe(false);
    const spans = recorder.take();
    expect(spans).toEqual([
      {
        name: 'POLICY /a',
        attributes: { 'kyverno.policy.name': 'a', extra: true },
        startMs: 1000,
        endMs: 1005,
        children: [
          { name: 'RULE r1', attributes: { 'kyverno.rule.name': 'r1' }, startMs: 1001, endMs: 1002, children: [] },
          { name: 'RULE r2', attributes: {}, startMs: 1003, endMs: 1004, error: 'boom', children: [] },
        ],
      },
    ]);
    expect(recorder.take()).toEqual([]);
  });

  it('keeps a span still open for a later take', async () => {
    const recorder = new SpanRecorder();
    let finish!: () => void;
    const open = recorder.span('POLICY /late', {}, () => new Promise<void>((resolve) => (finish = resolve)));
    recorder.span('POLICY /early', {}, () => undefined);
    // The early one started inside the open one: it is its child, and neither is finished at the top.
    expect(recorder.take()).toEqual([]);
    finish();
    await open;
    expect(recorder.take().map((span) => [span.name, span.children.map((child) => child.name)])).toEqual([
      ['POLICY /late', ['POLICY /early']],
    ]);
  });
});
