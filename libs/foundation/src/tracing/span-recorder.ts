/**
 * A Tracing that records spans as plain data instead of exporting them: a review worker thread
 * traces its engine with one per review and sends the spans back, and the main thread replays
 * them under the review's span (`Tracing.replay`). One recorder serves one sequence of work whose
 * spans nest strictly (a review's policies and rules run one after another): the span open when
 * another starts is its parent.
 */
import { errorMessage } from '../errors/error-message';
import type { RecordedSpan, SpanAttributes, SpanAttributeValue, SpanHandle, Tracing } from './tracing';

interface OpenSpan {
  readonly name: string;
  readonly attributes: Record<string, SpanAttributeValue>;
  readonly startMs: number;
  endMs: number;
  error?: string;
  readonly children: OpenSpan[];
}

/** Spans one recorder keeps at most (a review's policies and rules); beyond it they are dropped. */
export const MAX_RECORDED_SPANS = 10_000;

const epochNow = (): number => performance.timeOrigin + performance.now();

export class SpanRecorder implements Tracing {
  readonly enabled = true;
  private roots: OpenSpan[] = [];
  private readonly open: OpenSpan[] = [];
  private count = 0;

  constructor(private readonly now: () => number = epochNow) {}

  span<T>(name: string, attributes: SpanAttributes, run: (span: SpanHandle) => T): T {
    const span: OpenSpan = { name, attributes: defined(attributes), startMs: this.now(), endMs: 0, children: [] };
    const kept = this.count < MAX_RECORDED_SPANS;
    if (kept) {
      this.count += 1;
      (this.open.at(-1)?.children ?? this.roots).push(span);
    }
    this.open.push(span);
    const handle: SpanHandle = { setAttributes: (more) => Object.assign(span.attributes, defined(more)) };
    const end = (error?: unknown) => {
      span.endMs = this.now();
      if (error !== undefined) span.error = errorMessage(error);
      const at = this.open.lastIndexOf(span);
      if (at >= 0) this.open.splice(at, 1);
    };
    let result: T;
    try {
      result = run(handle);
    } catch (error) {
      end(error);
      throw error;
    }
    if (result instanceof Promise) {
      return result.then(
        (value: unknown) => {
          end();
          return value;
        },
        (error: unknown) => {
          end(error);
          throw error;
        },
      ) as T;
    }
    end();
    return result;
  }

  inSpan(): boolean {
    return this.open.length > 0;
  }

  bind<A extends unknown[], R>(run: (...args: A) => R): (...args: A) => R {
    return run;
  }

  /** The spans finished since the last call (top-level ones with their children); clears them. */
  take(): RecordedSpan[] {
    const finished = this.roots.filter((span) => span.endMs > 0);
    this.roots = this.roots.filter((span) => span.endMs === 0);
    this.count = 0;
    return finished;
  }
}

function defined(attributes: SpanAttributes): Record<string, SpanAttributeValue> {
  const out: Record<string, SpanAttributeValue> = {};
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined) out[key] = value;
  return out;
}
