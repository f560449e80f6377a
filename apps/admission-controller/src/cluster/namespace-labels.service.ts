/**
 * Namespaces from an informer (no API call per request): their labels for policies'
 * namespaceSelector, their objects for CEL's `namespaceObject`. A namespace the informer has not
 * seen yet (created a moment ago: its first Pod can arrive before the watch event) is read live
 * once, so a selector is never decided on missing labels.
 *
 * The namespace comes from the review, and anything that reaches the webhook port can send reviews
 * naming made-up namespaces. So once the informer has listed, live reads are bounded: answers (found
 * or not) are kept a few seconds in a bounded map, concurrent lookups of one name share one read, and
 * reads beyond a budget (LIVE_READS_PER_SECOND, burst LIVE_READ_BURST) are not made: the lookup
 * fails and the review is answered by its failure policy. The API server's own reviews name only
 * namespaces that exist, which the informer holds within a second.
 */
import { Inject, Injectable, Logger } from '@nestjs/common';
import { InformerFactory, InformerService, KubeResources, isNotFound, type Informer, ReadBudget } from '@edict/kube';
import { type KubeObject } from '@edict/foundation';
import { CONTROLLER_CONFIG } from '../config/tokens';
import type { ControllerConfig } from '../config/controller-config';

type Labels = Record<string, string>;

/** Longest a live lookup may take; the review's own deadline still bounds it. */
export const NAMESPACE_LOOKUP_TIMEOUT_MS = 2_000;
/** How long a live answer stands in for the informer (which normally catches up within a second). */
const LIVE_ANSWER_TTL_MS = 5_000;
/** Live answers kept at once; namespace names come from requests, so the map is bounded. */
const MAX_LIVE_ANSWERS = 1_000;
/** Live reads of namespaces the listed informer does not hold, per second, and at once. */
export const LIVE_READS_PER_SECOND = 10;
export const LIVE_READ_BURST = 20;
/** Refused lookups are logged together, at most this often. */
const REFUSAL_LOG_INTERVAL_MS = 10_000;

/**
 * A lookup refused because live reads are over their budget. The review is answered by its failure
 * policy; the refusals are logged here in one line per interval, not one error per review.
 */
export class NamespaceReadRefused extends Error {}

@Injectable()
export class NamespaceLabels extends InformerService {
  private readonly informer: Informer<KubeObject>;
  private readonly live = new Map<string, { object: KubeObject | undefined; until: number }>();
  /** Reads under way, by name: a burst of reviews naming one new namespace makes one read. */
  private readonly reading = new Map<string, Promise<KubeObject | undefined>>();
  private readonly budget: ReadBudget;
  private readonly logger = new Logger('NamespaceLabels');
  private refused = 0;
  private refusalLoggedAt = Number.NEGATIVE_INFINITY;

  constructor(
    @Inject(CONTROLLER_CONFIG) settings: ControllerConfig,
    informers: InformerFactory,
    private readonly resources: KubeResources,
  ) {
    super(informers, settings.watchTimeoutSeconds);
    this.informer = this.watch<KubeObject>({ apiVersion: 'v1', kind: 'Namespace' });
    this.budget = new ReadBudget(LIVE_READS_PER_SECOND, LIVE_READ_BURST);
  }

  /** Whether the namespace is known to exist (the informer holds it, or a live read found it), without reading. */
  knows(namespace: string): boolean {
    if (this.informer.get(namespace)) return true;
    const cached = this.live.get(namespace);
    return cached !== undefined && cached.object !== undefined && cached.until > Date.now();
  }

  /**
   * The labels a request's namespace selectors see. None for a Namespace itself: the API server
   * names a Namespace as its own request's namespace, and selectors do not apply to it (Kyverno
   * reads nothing either), so creating many Namespaces at once costs no lookups.
   */
  async labelsForRequest(request: {
    readonly kind: { readonly kind: string };
    readonly namespace?: string;
  }): Promise<Labels | undefined> {
    if (request.kind.kind === 'Namespace') return {};
    return this.labelsOf(request.namespace);
  }

  /**
   * The namespace's labels; undefined for cluster-scoped requests. A namespace unknown to the
   * informer is fetched from the API server (empty labels when it does not exist); a failed lookup
   * throws, and the review is answered by its failure policy.
   */
  async labelsOf(namespace: string | undefined): Promise<Labels | undefined> {
    if (!namespace) return undefined;
    const object = await this.namespaceObject(namespace);
    return object ? labelsOf(object) : {};
  }

  /** The namespace's object; undefined when it does not exist. */
  async namespaceObject(namespace: string): Promise<KubeObject | undefined> {
    const known = this.informer.get(namespace);
    if (known) return known;
    const cached = this.live.get(namespace);
    if (cached && cached.until > Date.now()) return cached.object;
    const under = this.reading.get(namespace);
    if (under) return under;
    // Before the informer has listed, every namespace is unknown to it: reads are not budgeted then.
    if (this.informer.hasSynced() && !this.budget.take()) throw this.refuse(namespace);
    const read = this.fetch(namespace)
      .then((object) => {
        this.live.delete(namespace);
        if (this.live.size >= MAX_LIVE_ANSWERS) this.live.delete(this.live.keys().next().value as string);
        this.live.set(namespace, { object, until: Date.now() + LIVE_ANSWER_TTL_MS });
        return object;
      })
      .finally(() => this.reading.delete(namespace));
    this.reading.set(namespace, read);
    return read;
  }

  private refuse(namespace: string): NamespaceReadRefused {
    const error = new NamespaceReadRefused(
      `namespace ${namespace} is not known to the namespace informer, and live namespace reads are over ` +
        `their budget (${LIVE_READS_PER_SECOND} per second): the review is answered by the webhook's failure policy`,
    );
    this.refused += 1;
    const now = Date.now();
    if (now - this.refusalLoggedAt >= REFUSAL_LOG_INTERVAL_MS) {
      this.logger.warn(
        `${this.refused} namespace lookup(s) refused since the last report; the latest: ${error.message}`,
      );
      this.refused = 0;
      this.refusalLoggedAt = now;
    }
    return error;
  }

  private async fetch(namespace: string): Promise<KubeObject | undefined> {
    try {
      return await this.resources.http.json<KubeObject>({
        path: `/api/v1/namespaces/${encodeURIComponent(namespace)}`,
        totalTimeoutMs: NAMESPACE_LOOKUP_TIMEOUT_MS,
      });
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw new Error(`could not read namespace ${namespace}: ${(error as Error).message}`);
    }
  }
}

function labelsOf(object: KubeObject): Labels {
  return (object.metadata as { labels?: Labels } | undefined)?.labels ?? {};
}
