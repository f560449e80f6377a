/**
 * One error type for API server failures, whichever client produced them: client-node's
 * `ApiException` (body is the Status, often as a JSON string), our own HTTP client, a watch ERROR
 * event, or a plain `Error` with `statusCode` (client-node's `Watch`).
 */
export interface KubeStatus {
  readonly kind?: string;
  readonly apiVersion?: string;
  readonly status?: string;
  readonly message?: string;
  readonly reason?: string;
  readonly code?: number;
  readonly details?: Record<string, unknown>;
}

export class KubeApiError extends Error {
  override readonly name = 'KubeApiError';

  constructor(
    /** The HTTP status code (410 for an expired watch). */
    readonly code: number,
    /** kube's reason (`NotFound`, `Conflict`, `Expired`, ...), or '' when the server sent none. */
    readonly reason: string,
    message: string,
    readonly status?: KubeStatus,
  ) {
    super(message);
  }

  static fromStatus(status: KubeStatus, httpCode?: number): KubeApiError {
    const code = typeof status.code === 'number' && status.code > 0 ? status.code : (httpCode ?? 500);
    const reason = typeof status.reason === 'string' ? status.reason : '';
    const message = typeof status.message === 'string' && status.message !== '' ? status.message : `HTTP ${code}`;
    return new KubeApiError(code, reason, message, status);
  }

  /** Builds from an HTTP status and a raw body (a Status JSON, or any text). */
  static fromResponse(code: number, body: unknown): KubeApiError {
    const status = parseStatus(body);
    if (status) return KubeApiError.fromStatus(status, code);
    const text = typeof body === 'string' && body.trim() !== '' ? body.trim() : `HTTP ${code}`;
    return new KubeApiError(code, '', text);
  }
}

/**
 * Maps any client error to a `KubeApiError`; `undefined` when it is not an API server answer
 * (connection refused, timeout, a bug).
 */
export function toKubeApiError(error: unknown): KubeApiError | undefined {
  if (error instanceof KubeApiError) return error;
  if (typeof error !== 'object' || error === null) return undefined;
  const candidate = error as { code?: unknown; body?: unknown; statusCode?: unknown; message?: unknown };
  // client-node ApiException: numeric `code` plus `body`.
  if (typeof candidate.code === 'number' && 'body' in candidate) {
    return KubeApiError.fromResponse(candidate.code, candidate.body);
  }
  // client-node Watch: `Error(statusText)` with `statusCode`.
  if (typeof candidate.statusCode === 'number') {
    return new KubeApiError(candidate.statusCode, '', String(candidate.message ?? `HTTP ${candidate.statusCode}`));
  }
  return undefined;
}

function parseStatus(body: unknown): KubeStatus | undefined {
  let value = body;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const status = value as KubeStatus;
  return status.kind === 'Status' || typeof status.reason === 'string' || typeof status.message === 'string'
    ? status
    : undefined;
}

const hasCode =
  (code: number) =>
  (error: unknown): boolean =>
    toKubeApiError(error)?.code === code;

export const isNotFound = hasCode(404);
export const isConflict = hasCode(409);
/** 403: RBAC (or another authorizer) refused the request. */
export const isForbidden = hasCode(403);
/** 410: a watch or list continuation from a compacted resourceVersion. */
export const isGone = hasCode(410);

/** 409 with reason AlreadyExists (a create of an existing name), apart from update conflicts. */
export function isAlreadyExists(error: unknown): boolean {
  const apiError = toKubeApiError(error);
  return apiError?.code === 409 && apiError.reason === 'AlreadyExists';
}
