/**
 * Leader-only: generates ValidatingAdmissionPolicies and MutatingAdmissionPolicies (with bindings)
 * from Kyverno policies, as Kyverno's admission controller does on its leader. Each leadership
 * starts informers for the source policies, their exceptions and the generated kinds, and runs a
 * pass (GenerationPass) after any change of them, one at a time, and every resync interval.
 */
import { hostname } from 'node:os';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Policy, PolicyException } from '@edict/engine';
import type { KubeObject } from '@edict/foundation';
import { KubeAccessReviewer } from '@edict/context';
import {
  DiscoveryResolver,
  EventRecorder,
  InformerFactory,
  KubeEventSink,
  KubeResources,
  type EventInput,
  type Informer,
} from '@edict/kube';
import { LeaderProvider, type LeaderAware } from '@edict/leader';
import {
  CEL_POLICY_EXCEPTION_REF,
  CLUSTER_POLICY_REF,
  MUTATING_POLICY_REF,
  POLICY_EXCEPTION_REF,
  VALIDATING_POLICY_REF,
} from '@edict/policy';
import { SerialPass } from '@edict/work-queue';
import type { ControllerConfig } from '../config/controller-config';
import { CONTROLLER_CONFIG } from '../config/tokens';
import { GENERATE_POLICY_EVENT_SOURCE, GenerationPass, type GeneratedKind } from './generation-pass';
import { KubeGeneratorStore, servedMutatingVersion, servesValidatingPolicies } from './kube-generator-store';

/** How long changes are gathered before a pass (a policy and its exception often arrive together). */
const SETTLE_MS = 200;
/** A pass also runs this often, so a failed write is retried. */
const RESYNC_MS = 30_000;
/** How long pending Events may still be written when leadership ends. */
const EVENT_FLUSH_MS = 2_000;

@Injectable()
@LeaderProvider()
export class AdmissionPolicyGenerator implements LeaderAware {
  private readonly logger = new Logger('AdmissionPolicyGenerator');

  constructor(
    @Inject(CONTROLLER_CONFIG) private readonly config: ControllerConfig,
    private readonly resources: KubeResources,
    private readonly informers: InformerFactory,
  ) {}

  async onStartedLeading(signal: AbortSignal): Promise<void> {
    const discovery = new DiscoveryResolver(this.resources.http);
    const reviewer = new KubeAccessReviewer(this.resources, 'self');
    const mutatingVersion = await servedMutatingVersion(discovery).catch(() => undefined);
    // Without the kinds served (an API server too old, or not serving them) there is nothing to write.
    const validating =
      this.config.generateValidatingAdmissionPolicy && (await servesValidatingPolicies(discovery).catch(() => false));
    const flags = {
      generateValidatingAdmissionPolicy: validating,
      generateMutatingAdmissionPolicy: this.config.generateMutatingAdmissionPolicy,
    };
    const watch = this.config.watchTimeoutSeconds;
    const make = <T extends KubeObject = KubeObject>(ref: { apiVersion: string; kind: string }): Informer<T> =>
      this.informers.create<T>({ ...ref, watchTimeoutSeconds: watch });
    const generated: Partial<Record<GeneratedKind, Informer<KubeObject>>> = {};
    const admission = 'admissionregistration.k8s.io';
    if (validating) {
      generated.ValidatingAdmissionPolicy = make({ apiVersion: `${admission}/v1`, kind: 'ValidatingAdmissionPolicy' });
      generated.ValidatingAdmissionPolicyBinding = make({
        apiVersion: `${admission}/v1`,
        kind: 'ValidatingAdmissionPolicyBinding',
      });
    }
    if (mutatingVersion) {
      generated.MutatingAdmissionPolicy = make({
        apiVersion: `${admission}/${mutatingVersion}`,
        kind: 'MutatingAdmissionPolicy',
      });
      generated.MutatingAdmissionPolicyBinding = make({
        apiVersion: `${admission}/${mutatingVersion}`,
        kind: 'MutatingAdmissionPolicyBinding',
      });
    }
    const caches = {
      clusterPolicies: make<Policy & KubeObject>(CLUSTER_POLICY_REF),
      policyExceptions: make<PolicyException & KubeObject>(POLICY_EXCEPTION_REF),
      validatingPolicies: make(VALIDATING_POLICY_REF),
      mutatingPolicies: make(MUTATING_POLICY_REF),
      celExceptions: make(CEL_POLICY_EXCEPTION_REF),
      generated,
    };
    const all: Informer<KubeObject>[] = [
      caches.clusterPolicies,
      caches.policyExceptions,
      caches.validatingPolicies,
      caches.mutatingPolicies,
      caches.celExceptions,
      ...Object.values(generated),
    ] as Informer<KubeObject>[];
    const store = new KubeGeneratorStore({
      resources: this.resources,
      discovery,
      caches: caches as never,
      mutatingVersion,
      mayDo: async (verb, resource, version) => {
        const decision = await reviewer
          .review({ user: '', resourceAttributes: { group: admission, version, resource, verb } })
          .catch(() => ({ allowed: false }));
        return decision.allowed;
      },
    });
    const events = new EventRecorder(new KubeEventSink(this.resources), {
      reportingController: GENERATE_POLICY_EVENT_SOURCE,
      reportingInstance: `${GENERATE_POLICY_EVENT_SOURCE}-${hostname()}`,
      maxPending: this.config.maxQueuedEvents,
      onError: (error, event) =>
        this.logger.warn(`event ${event.reason} on ${event.regarding.kind} ${event.regarding.name}: ${String(error)}`),
    });
    const omit = new Set(this.config.omitEvents);
    const emit = (list: EventInput[]): void => {
      for (const event of list) if (!omit.has(event.reason)) events.record(event);
    };
    const pass = new SerialPass(() =>
      new GenerationPass(store, flags, { log: (message) => this.logger.debug(message), emit }).run(),
    );
    let timer: NodeJS.Timeout | undefined;
    const schedule = (): void => {
      if (signal.aborted || timer) return;
      timer = setTimeout(() => {
        timer = undefined;
        pass.run().catch((error: unknown) => this.logger.warn(error instanceof Error ? error.message : String(error)));
      }, SETTLE_MS);
    };
    for (const informer of all) {
      informer.on('add', schedule);
      informer.on('update', schedule);
      informer.on('delete', schedule);
      informer.start();
    }
    const resync = setInterval(schedule, RESYNC_MS);
    try {
      await Promise.all(all.map((informer) => informer.waitForSync()));
      schedule();
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    } finally {
      clearInterval(resync);
      if (timer) clearTimeout(timer);
      await Promise.all(all.map((informer) => informer.stop()));
      await events.stop(EVENT_FLUSH_MS);
    }
  }
}
