/**
 * The tracing port: what the engines, the admission path and the Kubernetes client call to record
 * spans, without knowing OpenTelemetry. NO_TRACING (the default everywhere) costs a property read:
 * callers check `enabled` before building a span's name and attributes. The OpenTelemetry adapter
 * is `@edict/tracing`, started by the controller runtime when tracing is configured.
 */

export type SpanAttributeValue = string | number | boolean | readonly string[];
export type SpanAttributes = Readonly<Record<string, SpanAttributeValue | undefined>>;

/** The span a `span` callback runs in: attributes known only at its end (an admission's answer). */
export interface SpanHandle {
  setAttributes(attributes: SpanAttributes): void;
}

export interface Tracing {
  /** False for NO_TRACING: nothing is recorded, and callers skip the span entirely. */
  readonly enabled: boolean;
  /**
   * Runs `run` in a new span, a child of the current one (a new trace when none is current). The
   * span ends when `run` returns, or when the promise it returns settles; an error (thrown or
   * rejected) is recorded on it and sets its status, as Kyverno's SetSpanStatus does.
   */
  span<T>(name: string, attributes: SpanAttributes, run: (span: SpanHandle) => T): T;
  /** Whether a span is current: Kyverno's client calls start spans only inside one. */
  inSpan(): boolean;
  /** `run` bound to the current span, for work a queue runs later under another caller. */
  bind<A extends unknown[], R>(run: (...args: A) => R): (...args: A) => R;
  /**
   * Records spans made elsewhere (a review worker thread's SpanRecorder) as children of the
   * current span, with their own times, attributes, status and nesting.
   */
  replay?(spans: readonly RecordedSpan[]): void;
}

/** A finished span as plain data (it crosses threads as JSON). */
export interface RecordedSpan {
  readonly name: string;
  readonly attributes: Readonly<Record<string, SpanAttributeValue>>;
  /** Epoch milliseconds (`performance.timeOrigin + performance.now()`, a clock threads share). */
  readonly startMs: number;
  readonly endMs: number;
  /** Set when the span's work failed (its status is then ERROR). */
  readonly error?: string;
  readonly children: readonly RecordedSpan[];
}

const NO_SPAN: SpanHandle = { setAttributes: () => undefined };

export const NO_TRACING: Tracing = Object.freeze({
  enabled: false,
  span: <T>(_name: string, _attributes: SpanAttributes, run: (span: SpanHandle) => T): T => run(NO_SPAN),
  inSpan: () => false,
  bind: <A extends unknown[], R>(run: (...args: A) => R) => run,
});

/** The injection token of the app's Tracing (the controller runtime provides it; absent means NO_TRACING). */
export const TRACING = Symbol.for('edict.tracing');

/** Kyverno's span attribute keys (pkg/tracing/attributes.go), with its names. */
export const TRACE_KEYS = {
  policyGroup: 'kyverno.policy.group',
  policyVersion: 'kyverno.policy.version',
  policyKind: 'kyverno.policy.kind',
  policyName: 'kyverno.policy.name',
  policyNamespace: 'kyverno.policy.namespace',
  ruleName: 'kyverno.rule.name',
  requestName: 'admission.request.name',
  requestNamespace: 'admission.request.namespace',
  requestUid: 'admission.request.uid',
  requestOperation: 'admission.request.operation',
  requestDryRun: 'admission.request.dryrun',
  requestKindGroup: 'admission.request.kind.group',
  requestKindVersion: 'admission.request.kind.version',
  requestKindKind: 'admission.request.kind.kind',
  requestSubResource: 'admission.request.subresource',
  requestRequestKindGroup: 'admission.request.requestkind.group',
  requestRequestKindVersion: 'admission.request.requestkind.version',
  requestRequestKindKind: 'admission.request.requestkind.kind',
  requestRequestSubResource: 'admission.request.requestsubresource',
  requestResourceGroup: 'admission.request.resource.group',
  requestResourceVersion: 'admission.request.resource.version',
  requestResourceResource: 'admission.request.resource.resource',
  requestRequestResourceGroup: 'admission.request.requestresource.group',
  requestRequestResourceVersion: 'admission.request.requestresource.version',
  requestRequestResourceResource: 'admission.request.requestresource.resource',
  requestUserName: 'admission.request.user.name',
  requestUserUid: 'admission.request.user.uid',
  requestUserGroups: 'admission.request.user.groups',
  responseUid: 'admission.response.uid',
  responseAllowed: 'admission.response.allowed',
  responseWarnings: 'admission.response.warnings',
  responseResultStatus: 'admission.response.result.status',
  responseResultMessage: 'admission.response.result.message',
  responseResultReason: 'admission.response.result.reason',
  responseResultCode: 'admission.response.result.code',
  responsePatchType: 'admission.response.patchtype',
  kubeClientGroup: 'kube.client.group',
  kubeClientKind: 'kube.client.kind',
  kubeClientOperation: 'kube.client.operation',
  kubeClientNamespace: 'kube.client.namespace',
} as const;
