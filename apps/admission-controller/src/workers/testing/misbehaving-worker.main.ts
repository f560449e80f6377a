/**
 * A review worker for specs that crashes on a review of uid `crash` and never answers one of uid
 * `hang` (a busy loop); every other review is evaluated as in the real worker.
 */
import { parentPort } from 'node:worker_threads';
import { ReviewEvaluator } from '../review-evaluator';
import type { ToWorker } from '../review-protocol';

const port = parentPort!;
const evaluator = new ReviewEvaluator((message) => port.postMessage(message));
port.on('message', (message: ToWorker) => {
  if (message.type === 'review' && message.request.uid === 'crash') process.exit(3);
  if (message.type === 'review' && message.request.uid === 'hang') for (;;);
  evaluator.handle(message);
});
