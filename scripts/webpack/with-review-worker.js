// Webpack config for a bundle that runs the admission controller: Nest's defaults plus the
// controller's review worker thread, emitted beside the bundle's main.js as review-worker.js
// (the controller starts it from its own directory). Nest loads this file with require().
/* eslint-disable @typescript-eslint/no-require-imports */
/* global __dirname */
const { dirname, join } = require('node:path');

const REVIEW_WORKER = join(__dirname, '../../apps/admission-controller/src/workers/review-worker.main.ts');

module.exports = (options) => ({
  ...options,
  entry: { main: options.entry, 'review-worker': REVIEW_WORKER },
  output: { ...options.output, filename: join(dirname(options.output.filename), '[name].js') },
});
