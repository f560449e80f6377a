// @edict/egress: outbound HTTP(S) to policy- or request-controlled targets, kept off blocked addresses.
export { AddressPolicy, DEFAULT_BLOCKED_CIDRS, EgressConfigError } from './address-policy';
export { EgressClient, type EgressRequest, type EgressResponse, type ResolveAll } from './egress-client';
export {
  EgressError,
  EgressRedirectError,
  EgressRefusedError,
  EgressRequestError,
  EgressResponseTooLargeError,
  EgressTimeoutError,
  formatBytes,
} from './egress-errors';
export {
  DEFAULT_EGRESS_TIMEOUT_MS,
  DEFAULT_MAX_RESPONSE_BYTES,
  EgressOptions,
  resolveEgressOptions,
  type ResolvedEgressOptions,
} from './egress.options';
