/** A review worker thread's entry: the main thread's messages go to one ReviewEvaluator, its answers back in batches. */
import 'reflect-metadata';
import { parentPort } from 'node:worker_threads';
import { ReviewEvaluator } from './review-evaluator';
import { MessageBatch } from './message-batch';
import { encodeFromWorker, type FromWorker, type ToWorker } from './review-protocol';

const port = parentPort;
if (!port) throw new Error('review-worker.main runs in a worker thread');
const outbox = new MessageBatch<FromWorker>((batch) => port.postMessage(encodeFromWorker(batch)));
const evaluator = new ReviewEvaluator((message) => outbox.post(message));
port.on('message', (batch: ToWorker[]) => {
  for (const message of batch) evaluator.handle(message);
});
