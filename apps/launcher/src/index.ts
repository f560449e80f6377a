// The launcher as a library, for what starts the local cluster in-process: the e2e conformance
// suite. Its entry point is main.ts.
export { startLocalCluster, type LocalCluster, type LocalClusterOptions } from './local/local-cluster';
