// Test helpers for code that runs Kyverno test files: a scriptable engine and file fixtures.
export * from './fake-engine';
export * from './fixtures';
export * from './temp-tree';
