// Runs Kyverno CLI test files (`kyverno-test.yaml`) against the engine: the CLI's `test` and `apply`
// commands, the conformance suite and the benchmarks all go through here.
export * from './check-types';
export { celDocumentList, emptyCelDocuments, mergeCelDocuments, type CelDocuments } from './cel-documents';
export { EMPTY_CONTEXT, loadContextFile, type CliContext, type ImageDataMock } from './context-file';
export { defaultEngineFactory } from './default-engine';
export { evaluateTest, type EvaluatedResponse, type Stage, type TestEvaluation } from './evaluate';
export type { CelEvaluatedResponse, CelPolicyKind, CelPolicyResponse } from './evaluate-cel';
export { loadPolicyFiles, type InvalidPolicy, type PolicyFiles } from './policies';
export { loadResources, resourcePath } from './resources';
export { reportResult } from './report-result';
export { outcome, runTests, runTestFile, type RunOptions, type RunResult, type TestRun } from './run-tests';
export { loadJsonPayload, loadTestCase } from './test-case';
export { loadClusterResources } from './cluster-resources';
export type { EngineFactory, TestEngine } from './test-engine';
export { loadTestFile } from './test-file';
export * from './types';
export { loadUserInfoFile } from './userinfo-file';
export { EMPTY_VALUES, loadValuesFile } from './values-file';
export { LoadError } from './io/load-error';
export {
  currentMaxFileSize,
  DEFAULT_MAX_FILE_SIZE,
  InputFileError,
  isDirectory,
  readBoundedText,
  setMaxFileSize,
} from './io/files';
export { DEFAULT_TEST_CASE_SELECTOR, parseTestCaseSelector, type TestCaseSelector } from './test-case-selector';
