/** What API discovery answers for a kind selector: the API resources serving it. */

/** One API resource a kind selector resolved to (from discovery). */
export interface ResolvedResource {
  readonly group: string;
  readonly version: string;
  /** Plural resource name (`pods`). */
  readonly resource: string;
  /** The kind the resource serves (`Pod`). */
  readonly kind: string;
  /** `''` for the main resource, else `exec`, `status`, `*`, ... */
  readonly subresource: string;
  readonly namespaced: boolean;
  /** The verbs discovery lists for the resource (absent where the resolver does not read them). */
  readonly verbs?: readonly string[];
}

/**
 * Maps one parsed kind selector (no wildcard kind) to the API resources serving it. `undefined`
 * means "not known (yet)": the result is then incomplete and must not narrow what is published.
 * An empty array means discovery answered and nothing serves it.
 */
export type ResourceResolver = (selector: {
  group: string;
  version: string;
  kind: string;
  subresource: string;
}) => readonly ResolvedResource[] | undefined;
