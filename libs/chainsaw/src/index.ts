// @edict/chainsaw: runs chainsaw (kyverno/chainsaw) end-to-end test files against a cluster.
export { runChainsawTests, runOneTest, runSettings } from './run/run-tests';
export type { ChainsawRunOptions, ChainsawTestResult, ChainsawFailure, ChainsawOutcome } from './run/options';
export type { RunSettings } from './run/context';
export type { ClusterClient, ObjectRef, PropagationPolicy } from './cluster/cluster-client';
export { KubeClusterClient } from './cluster/kube-cluster-client';
export { NoKindMatchError, TransientClusterError, isTransientAnswer } from './cluster/cluster-errors';
export type { ProcessRunner, ProcessRequest, ProcessResult } from './process/process-runner';
export { ChildProcessRunner, type ChildProcessRunnerOptions } from './process/child-process-runner';
export { discoverTestFiles, TEST_FILE_NAMES } from './load/discover';
export { loadTestFile, loadStepTemplate } from './load/load-test';
export { loadConfiguration, findConfigurationFile, CONFIGURATION_FILE } from './load/load-configuration';
export { ChainsawLoadError } from './load/fields';
export {
  DEFAULT_TIMEOUTS,
  DEFAULT_CONFIGURATION,
  type ChainsawTest,
  type ChainsawConfiguration,
  type Step,
  type Operation,
  type OperationType,
  type TimeoutKind,
  type Timeouts,
} from './load/model';
export { assertTree, formatFailure, AssertionInternalError, type AssertionFailure } from './assertion/assertion-tree';
export { diffExpectedActual } from './assertion/diff';
export { Bindings } from './expressions/bindings';
export { evaluateJmesPath, ExpressionError } from './expressions/jmespath';
export { templateValue } from './expressions/template';
