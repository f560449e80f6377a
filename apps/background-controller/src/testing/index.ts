// @edict/background-controller/testing: the background controller started for e2e specs (test/e2e), and
// what they read from a running one.
export { startTestBackground } from './start-test-background';
export { BackgroundMetrics } from '../metrics/background-metrics';
