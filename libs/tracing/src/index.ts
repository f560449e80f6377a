// @edict/tracing: the OpenTelemetry adapter of the tracing port (`Tracing` in @edict/foundation).
export {
  startOtelTracing,
  TRACER_NAME,
  TRACING_PROTOCOLS,
  type OtelTracingOptions,
  type RunningTracing,
  type TracingProtocol,
} from './otel-tracing';
