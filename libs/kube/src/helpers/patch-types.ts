/**
 * Patch content types. There is deliberately no default: strategic merge works only for built-in
 * types (a real API server answers 415 for custom resources), so callers choose.
 */
export const PATCH_CONTENT_TYPES = {
  /** RFC 7386 JSON merge patch: works for every type. */
  merge: 'application/merge-patch+json',
  /** RFC 6902 JSON patch (an array of operations): works for every type. */
  json: 'application/json-patch+json',
  /** Strategic merge patch: built-in types only. */
  strategic: 'application/strategic-merge-patch+json',
  /** Server-side apply (needs a field manager). */
  apply: 'application/apply-patch+yaml',
} as const;

export type PatchType = keyof typeof PATCH_CONTENT_TYPES;

export interface JsonPatchOperation {
  readonly op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  readonly path: string;
  readonly value?: unknown;
  readonly from?: string;
}

/** Escapes one JSON Pointer token (`~` → `~0`, `/` → `~1`), e.g. for label keys. */
export function jsonPointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}
