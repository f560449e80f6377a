/** What a guarded outbound call can fail with; every message names the URL it concerns. */

export class EgressError extends Error {
  override name = 'EgressError';
  constructor(
    message: string,
    /** The URL called, without user info. */
    readonly url: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/**
 * The target resolved to (or is) an address in the block list. The message never shows what a host
 * name resolved to: it ends up in denial messages, and a request's author must not learn addresses
 * inside the cluster that way (Kyverno leaves it out too). `address` keeps it for operators' logs.
 */
export class EgressRefusedError extends EgressError {
  override name = 'EgressRefusedError';
  /** Why, without the resolved address: `host x resolves into the blocked range r` or `address a is in ...`. */
  readonly reason: string;
  constructor(
    readonly address: string,
    readonly range: string,
    url: string,
    /** The host name that resolved to the address, when the URL named a host rather than an IP. */
    readonly hostname?: string,
  ) {
    const reason = hostname
      ? `host ${hostname} resolves into the blocked range ${range}`
      : `address ${address} is in the blocked range ${range}`;
    super(`refused: ${reason} (egress block list) calling ${url}`, url);
    this.reason = reason;
  }
}

export class EgressTimeoutError extends EgressError {
  override name = 'EgressTimeoutError';
  constructor(
    readonly timeoutMs: number,
    url: string,
  ) {
    super(`timed out after ${timeoutMs}ms calling ${url}`, url);
  }
}

export class EgressResponseTooLargeError extends EgressError {
  override name = 'EgressResponseTooLargeError';
  constructor(
    readonly limitBytes: number,
    url: string,
  ) {
    super(`response from ${url} exceeds the ${formatBytes(limitBytes)} limit`, url);
  }
}

/** A redirect that was not followed: too many, a downgrade to plain HTTP, or a bad Location. */
export class EgressRedirectError extends EgressError {
  override name = 'EgressRedirectError';
}

/** The request itself was bad (URL, protocol, method) or the connection failed. */
export class EgressRequestError extends EgressError {
  override name = 'EgressRequestError';
}

/** `2 MiB`, `512 KiB` or `1000 bytes`. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}
