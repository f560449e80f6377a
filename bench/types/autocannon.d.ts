/** The part of autocannon 9's API the bench uses (the package ships no types). */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  interface Options {
    url: string;
    connections?: number;
    /** Seconds. */
    duration?: number;
    pipelining?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    servername?: string;
    /** Responses whose body differs count as `mismatches`. */
    expectBody?: string;
    /** Responses it refuses count as `mismatches` (takes precedence over expectBody). */
    verifyBody?: (body: string) => boolean;
    /** Replaces `[<id>]` in the body with a fresh id on every request. */
    idReplacement?: boolean;
    timeout?: number;
  }

  interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p99: number;
  }

  interface Result {
    duration: number;
    errors: number;
    timeouts: number;
    mismatches: number;
    non2xx: number;
    resets: number;
    '2xx': number;
    requests: Histogram;
    latency: Histogram;
  }

  interface Instance extends EventEmitter, PromiseLike<Result> {}

  function autocannon(options: Options): Instance;
  export = autocannon;
}
