// Test helpers of the launcher for other projects' specs: the README's checked shell blocks (the
// walkthrough here, the CLI examples in apps/cli).
export { missingLines, parseSteps, readReadmeSteps, readWalkthrough, type WalkthroughStep } from './readme-walkthrough';
