/**
 * Namespaces from an informer (no API call per request): their labels for policies'
 * namespaceSelector, their objects for CEL's `namespaceObject`. A namespace the informer has not
 * seen yet (created a moment ago: its first Pod can arrive before the watch event) is read live
 * once, so a selector is never decided on missing labels.
 */
import { Inject, Injectable } from '@nestjs/common';
import {
  InformerFactory,
  InformerService,
  KubeResources,
  isNotFound,
  type Informer,
  type KubeObject,
} from '@edict/kube';
import { CONTROLLER_CONFIG } from '../config/tokens';
import type { ControllerConfig } from '../config/controller-config';

type Labels = Record<string, string>;

/** Longest a live lookup may take; the review's own deadline still bounds it. */
export const NAMESPACE_LOOKUP_TIMEOUT_MS = 2_000;
/** How long a live answer stands in for the informer (which normally catches up within a second). */
const LIVE_ANSWER_TTL_MS = 5_000;
/** Live answers kept at once; namespace names come from requests, so the map is bounded. */
const MAX_LIVE_ANSWERS = 1_000;

@Injectable()
export class NamespaceLabels extends InformerService {
  private readonly informer: Informer<KubeObject>;
  private readonly live = new Map<string, { object: KubeObject | undefined; until: number }>();

  constructor(
    @Inject(CONTROLLER_CONFIG) settings: ControllerConfig,
    informers: InformerFactory,
    private readonly resources: KubeResources,
  ) {
    super(informers, settings.watchTimeoutSeconds);
    this.informer = this.watch<KubeObject>({ apiVersion: 'v1', kind: 'Namespace' });
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
    const object = await this.fetch(namespace);
    if (this.live.size >= MAX_LIVE_ANSWERS) this.live.delete(this.live.keys().next().value as string);
    this.live.set(namespace, { object, until: Date.now() + LIVE_ANSWER_TTL_MS });
    return object;
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
