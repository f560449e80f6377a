export {
  updateRequestsFor,
  type UpdateRequestSpec,
  type UpdateRequestResourceSpec,
  type BackgroundOptions,
} from './update-requests';
export { mayConcernSynchronize, synchronizeRequestsFor, type SynchronizeLookup } from './synchronize-requests';
