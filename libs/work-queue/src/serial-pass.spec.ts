import { describe, expect, it } from 'vitest';
import { SerialPass } from './serial-pass';

/** A pass that waits until released, counting how many ran and how many ran at once. */
function gatedPasses() {
  const gates: Array<() => void> = [];
  const state = { started: 0, active: 0, mostAtOnce: 0 };
  const serial = new SerialPass(async () => {
    state.started += 1;
    const number = state.started;
    state.active += 1;
    state.mostAtOnce = Math.max(state.mostAtOnce, state.active);
    await new Promise<void>((resolve) => gates.push(resolve));
    state.active -= 1;
    return number;
  });
  const releaseNext = async () => {
    while (gates.length === 0) await new Promise((resolve) => setImmediate(resolve));
    gates.shift()!();
  };
  return { serial, state, releaseNext };
}

describe('SerialPass', () => {
  it('never overlaps passes; callers during a pass share one fresh pass after it', async () => {
    const { serial, state, releaseNext } = gatedPasses();
    const first = serial.run();
    const second = serial.run();
    const third = serial.run();
    await releaseNext();
    expect(await first).toBe(1);
    await releaseNext();
    expect(await Promise.all([second, third])).toEqual([2, 2]);
    expect(state).toMatchObject({ started: 2, mostAtOnce: 1 });
  });

  it('rejects the callers of a failed pass only; the next call runs anew', async () => {
    let calls = 0;
    const serial = new SerialPass(async () => {
      calls += 1;
      if (calls === 1) throw new Error('conflict');
      return calls;
    });
    await expect(serial.run()).rejects.toThrow('conflict');
    expect(await serial.run()).toBe(2);
  });
});
