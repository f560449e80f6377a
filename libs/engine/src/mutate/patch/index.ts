export { applyStrategicMergePatch } from './strategic-merge';
export { applyJson6902 } from './json6902';
export { NO_PATCHES_APPLIED, type PatchOutcome } from './outcome';
