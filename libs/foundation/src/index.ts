// @edict/foundation: what every lib shares, below the policy engine. Pure: no Nest, no I/O, no
// Kubernetes client, and no import from another lib of the repo.
export * from './json';
export * from './go';
export * from './values';
export * from './budget';
export { BoundedCache } from './cache/bounded-cache';
export { systemClock, type Clock } from './clock';
export {
  checkSelector,
  labelSelectorError,
  matchesLabelSelector,
  type LabelSelector,
  type LabelSelectorRequirement,
} from './labels/label-selector';
export {
  formatDiagnostic,
  formatPath,
  isError,
  parsePath,
  type Diagnostic,
  type PathSegment,
} from './documents/diagnostics';
export { fieldLine, parseDocuments, type ParsedDocuments, type SourceDocument } from './documents/documents';
export {
  DOMAIN_AND_PORT,
  ImageReferenceError,
  parseImageReference,
  REFERENCE,
  withDefaultRegistry,
  type ImageInfo,
  type ImageReferenceOptions,
} from './images/reference';
export { errorMessage } from './errors/error-message';
export {
  fieldSchema,
  listStrategyFor,
  mergeKeyFor,
  schemaForResource,
  type ListStrategy,
  type SchemaNode,
} from './patch-strategy/schema';
export {
  compileKindSelector,
  kindMatches,
  kindSelectorMatches,
  parseKind,
  type GroupVersionKind,
  type KindMatcher,
  type KindSelector,
} from './kinds/kind-selector';
export { pluralOfKind } from './kinds/kind-plural';
export { decodeX509, X509DecodeError } from './x509/decode';
export {
  NO_TRACING,
  TRACE_KEYS,
  TRACING,
  type RecordedSpan,
  type SpanAttributes,
  type SpanAttributeValue,
  type SpanHandle,
  type Tracing,
} from './tracing/tracing';
export { MAX_RECORDED_SPANS, SpanRecorder } from './tracing/span-recorder';
