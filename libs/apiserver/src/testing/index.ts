// Test helpers for @edict/apiserver: a started server, watch readers, a throwaway CA and webhook servers.
export { startServer, openWatch, dig, type Running, type WatchEvent } from './http';
export {
  createTestCa,
  startWebhookServer,
  jsonPatchResponse,
  type TestCa,
  type TestWebhookServer,
  type WebhookHandler,
} from './webhook-server';
export {
  KUBECTL,
  MISSING_KUBECTL,
  hasKubectl,
  kubectlSession,
  skipWithoutKubectl,
  tableRows,
  type KubectlSession,
} from './kubectl';
