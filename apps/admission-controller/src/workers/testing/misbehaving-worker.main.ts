/**
 * A review worker for specs that crashes on a review of uid `crash` and never answers one of uid
 * `hang` (a busy loop); every other review is evaluated as in the real worker.
 */
import { parentPort } from 'node:worker_threads';
import { ReviewEvaluator } from '../review-evaluator';
import { MessageBatch } from '../message-batch';
import { encodeFromWorker, type FromWorker, type ToWorker } from '../review-protocol';

const port = parentPort!;
const outbox = new MessageBatch<FromWorker>((batch) => port.postMessage(encodeFromWorker(batch)));
const evaluator = new ReviewEvaluator((message) => outbox.post(message));
port.on('message', (batch: ToWorker[]) => {
  for (const message of batch) {
    const uid =
      message.type === 'review' ? (JSON.parse(message.review) as { request: { uid: string } }).request.uid : '';
    if (uid === 'crash') process.exit(3);
    if (uid === 'hang') for (;;);
    evaluator.handle(message);
  }
});
