export {
  updateRequestsFor,
  type UpdateRequestSpec,
  type UpdateRequestResourceSpec,
  type BackgroundOptions,
} from './update-requests';
