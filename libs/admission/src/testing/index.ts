// @edict/admission/testing: what specs and the bench outside the lib share.
export { bigPod, nestedForeachPolicy, requireOwnerPolicy } from './slow-policy';
