import { describe, expect, it } from 'vitest';
import { MessageBatch } from './message-batch';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('MessageBatch', () => {
  it('sends the messages of one turn together, in order, and nothing for an empty turn', async () => {
    const sent: number[][] = [];
    const batch = new MessageBatch<number>((messages) => sent.push(messages));
    batch.post(1);
    batch.post(2);
    batch.post(3);
    expect(sent).toEqual([]);
    await nextTurn();
    expect(sent).toEqual([[1, 2, 3]]);
    await nextTurn();
    batch.post(4);
    await nextTurn();
    expect(sent).toEqual([[1, 2, 3], [4]]);
  });
});
