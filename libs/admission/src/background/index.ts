export {
  updateRequestsFor,
  type UpdateRequestSpec,
  type UpdateRequestResourceSpec,
  type BackgroundOptions,
} from './update-requests';
export { mayConcernSynchronize, synchronizeRequestsFor, type SynchronizeLookup } from './synchronize-requests';
export {
  mutateExistingRequests,
  mutatingPolicyKey,
  CEL_MUTATE_REQUEST_TYPE,
  type MutateExistingRequestOptions,
} from './mutate-existing-requests';
