/** A review worker thread's entry: the main thread's messages go to one ReviewEvaluator. */
import 'reflect-metadata';
import { parentPort } from 'node:worker_threads';
import { ReviewEvaluator } from './review-evaluator';
import type { ToWorker } from './review-protocol';

const port = parentPort;
if (!port) throw new Error('review-worker.main runs in a worker thread');
const evaluator = new ReviewEvaluator((message) => port.postMessage(message));
port.on('message', (message: ToWorker) => evaluator.handle(message));
