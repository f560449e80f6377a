// Names every test that passed only on a retry (the e2e project retries once, vitest.config.ts), so a
// flaky test is tracked in the log and the results, never hidden by its retry.
export default class FlakyReporter {
  onTestCaseResult(testCase) {
    if (!testCase.diagnostic()?.flaky) return;
    const file = testCase.module.relativeModuleId ?? testCase.module.moduleId;
    console.log(`FLAKY ${file} > ${testCase.fullName} (passed on retry ${testCase.diagnostic().retryCount})`);
  }
}
