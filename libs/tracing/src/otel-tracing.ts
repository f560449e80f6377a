/**
 * The OpenTelemetry side of the tracing port, as Kyverno's pkg/tracing sets it up: a tracer
 * provider with a batching OTLP exporter (gRPC by default, Kyverno's only transport; OTLP/HTTP
 * JSON as an option), the service's name and version as its resource, and the parent span kept
 * across awaits with AsyncLocalStorage. Nothing is registered globally: two controllers in one
 * process (the local launcher) each keep their own provider and context.
 */
import { credentials } from '@grpc/grpc-js';
import { SpanStatusCode, trace, type Attributes, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter as GrpcTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { OTLPTraceExporter as HttpTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { errorMessage, type RecordedSpan, type SpanAttributes, type SpanHandle, type Tracing } from '@edict/foundation';

/** Kyverno's tracer name (pkg/tracing TracerName). */
export const TRACER_NAME = 'kyverno';

export const TRACING_PROTOCOLS = ['grpc', 'http/json'] as const;
export type TracingProtocol = (typeof TRACING_PROTOCOLS)[number];

export interface OtelTracingOptions {
  /** The resource's `service.name` (Kyverno: the controller's name). */
  readonly serviceName: string;
  readonly serviceVersion?: string;
  /** The collector's `host:port` (Kyverno's --tracingAddress and --tracingPort). */
  readonly endpoint: string;
  readonly protocol: TracingProtocol;
  /** PEM CA the collector's certificate must chain to (Kyverno's --tracingCreds); absent: plain text. */
  readonly caPem?: string;
  /** Instead of the OTLP exporter (specs). */
  readonly exporter?: SpanExporter;
}

export interface RunningTracing extends Tracing {
  /** Exports what is batched, then stops (Kyverno's shutdown with a 20 s bound). */
  shutdown(): Promise<void>;
}

const SHUTDOWN_TIMEOUT_MS = 20_000;

export function startOtelTracing(options: OtelTracingOptions): RunningTracing {
  const exporter = options.exporter ?? otlpExporter(options);
  const provider = new BasicTracerProvider({
    resource: defaultResource().merge(
      resourceFromAttributes({
        'service.name': options.serviceName,
        ...(options.serviceVersion ? { 'service.version': options.serviceVersion } : {}),
      }),
    ),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  const contexts = new AsyncLocalStorageContextManager().enable();
  const tracer: Tracer = provider.getTracer(TRACER_NAME);
  let stopping: Promise<void> | undefined;

  const end = (span: Span, error?: unknown): void => {
    if (error === undefined) span.setStatus({ code: SpanStatusCode.OK });
    else {
      span.recordException(error instanceof Error ? error : errorMessage(error));
      span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(error) });
    }
    span.end();
  };

  return {
    enabled: true,
    span<T>(name: string, attributes: SpanAttributes, run: (span: SpanHandle) => T): T {
      const parent = contexts.active();
      const span = tracer.startSpan(name, { attributes: attributes as Attributes }, parent);
      const handle: SpanHandle = { setAttributes: (more) => span.setAttributes(more as Attributes) };
      let result: T;
      try {
        result = contexts.with(trace.setSpan(parent, span), run, undefined, handle);
      } catch (error) {
        end(span, error);
        throw error;
      }
      if (result instanceof Promise) {
        return result.then(
          (value: unknown) => {
            end(span);
            return value;
          },
          (error: unknown) => {
            end(span, error);
            throw error;
          },
        ) as T;
      }
      end(span);
      return result;
    },
    inSpan: () => trace.getSpan(contexts.active()) !== undefined,
    replay: (spans) => {
      const record = (recorded: RecordedSpan, parent: Context): void => {
        const span = tracer.startSpan(
          recorded.name,
          { attributes: recorded.attributes as Attributes, startTime: recorded.startMs },
          parent,
        );
        const context = trace.setSpan(parent, span);
        for (const child of recorded.children) record(child, context);
        if (recorded.error === undefined) span.setStatus({ code: SpanStatusCode.OK });
        else {
          span.recordException(recorded.error, recorded.endMs);
          span.setStatus({ code: SpanStatusCode.ERROR, message: recorded.error });
        }
        span.end(recorded.endMs);
      };
      const parent = contexts.active();
      for (const recorded of spans) record(recorded, parent);
    },
    bind: (run) => contexts.bind(contexts.active(), run),
    shutdown: () =>
      (stopping ??= Promise.race([
        provider.shutdown(),
        new Promise<void>((resolve) => setTimeout(resolve, SHUTDOWN_TIMEOUT_MS).unref()),
      ]).finally(() => contexts.disable())),
  };
}

function otlpExporter(options: OtelTracingOptions): SpanExporter {
  const secure = options.caPem !== undefined;
  if (options.protocol === 'grpc') {
    return new GrpcTraceExporter({
      url: `${secure ? 'https' : 'http'}://${options.endpoint}`,
      credentials: secure ? credentials.createSsl(Buffer.from(options.caPem!)) : credentials.createInsecure(),
    });
  }
  return new HttpTraceExporter({
    url: `${secure ? 'https' : 'http'}://${options.endpoint}/v1/traces`,
    ...(secure ? { httpAgentOptions: { ca: options.caPem } } : {}),
  });
}
