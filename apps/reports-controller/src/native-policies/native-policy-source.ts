/**
 * Kubernetes' own admission policies as the reports controller sees them, behind Kyverno's two
 * report flags (`--validatingAdmissionPolicyReports`, `--mutatingAdmissionPolicyReports`):
 * ValidatingAdmissionPolicies and MutatingAdmissionPolicies with their bindings, each watched by an
 * informer in the version the API server prefers (MutatingAdmissionPolicy is v1alpha1, v1beta1 or v1
 * depending on the cluster). Only policies labelled `reports.kyverno.io/enabled: "true"` and not
 * `reports.kyverno.io/disabled` are reported on (Kyverno's opt-in for native policies); bindings are
 * all kept. The informers run while some leader-only controller holds the source (`acquire`).
 */
import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { errorMessage, type JsonObject, type KubeObject } from '@edict/foundation';
import { DiscoveryResolver, Informer, KubeResources, resourceListWatch, servedTypes } from '@edict/kube';
import type { ReportsConfig } from '../config/reports-config';
import { REPORTS_CONFIG } from '../config/tokens';

/** Kyverno's opt-in label for reports on native policies. */
export const REPORTS_ENABLED_LABEL = 'reports.kyverno.io/enabled';
/** Any value leaves the policy out of reports, whatever the opt-in says. */
export const REPORTS_DISABLED_LABEL = 'reports.kyverno.io/disabled';

export const ADMISSION_REGISTRATION_GROUP = 'admissionregistration.k8s.io';

export type NativeKind =
  | 'ValidatingAdmissionPolicy'
  | 'ValidatingAdmissionPolicyBinding'
  | 'MutatingAdmissionPolicy'
  | 'MutatingAdmissionPolicyBinding';

/** The native policies in force; one object per change (callers may cache by identity). */
export interface NativePolicySnapshot {
  /** Reportable ValidatingAdmissionPolicies, by name. */
  readonly validating: readonly JsonObject[];
  readonly validatingBindings: readonly JsonObject[];
  /** Reportable MutatingAdmissionPolicies, by name. */
  readonly mutating: readonly JsonObject[];
  readonly mutatingBindings: readonly JsonObject[];
}

export interface NativePolicySource {
  snapshot(): NativePolicySnapshot;
  /** Called after any policy or binding changed; returns its removal. */
  onChange(listener: () => void): () => void;
}

export const NO_NATIVE_POLICIES: NativePolicySnapshot = {
  validating: [],
  validatingBindings: [],
  mutating: [],
  mutatingBindings: [],
};

/** Kyverno reports a native policy only when it opts in and is not disabled. */
export function isNativePolicyReportable(policy: { readonly metadata?: unknown }): boolean {
  const metadata = policy.metadata as { labels?: Record<string, unknown> } | undefined;
  const labels = metadata?.labels;
  if (!labels || typeof labels !== 'object') return false;
  if (Object.prototype.hasOwnProperty.call(labels, REPORTS_DISABLED_LABEL)) return false;
  return labels[REPORTS_ENABLED_LABEL] === 'true';
}

/** How often kinds the API server does not serve (yet) are looked for again. */
const DISCOVERY_RETRY_MS = 15_000;

@Injectable()
export class KubeNativePolicySource implements NativePolicySource, OnApplicationShutdown {
  private readonly logger = new Logger('NativePolicies');
  private readonly discovery: DiscoveryResolver;
  private readonly informers = new Map<NativeKind, Informer<KubeObject>>();
  /** The version each kind is watched in (listed items carry no apiVersion or kind: they are set back). */
  private readonly versions = new Map<NativeKind, string>();
  private readonly listeners = new Set<() => void>();
  private holders = 0;
  private retry?: NodeJS.Timeout;
  private current?: NativePolicySnapshot;

  constructor(
    @Inject(REPORTS_CONFIG) private readonly config: ReportsConfig,
    private readonly resources: KubeResources,
  ) {
    this.discovery = new DiscoveryResolver(resources.http);
  }

  /** The kinds the flags turn on. */
  get kinds(): NativeKind[] {
    const kinds: NativeKind[] = [];
    if (this.config.validatingAdmissionPolicyReports)
      kinds.push('ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding');
    if (this.config.mutatingAdmissionPolicyReports)
      kinds.push('MutatingAdmissionPolicy', 'MutatingAdmissionPolicyBinding');
    return kinds;
  }

  /** Starts watching (first holder) and returns the release (the last one stops the informers). */
  async acquire(): Promise<() => Promise<void>> {
    this.holders++;
    if (this.holders === 1) await this.watchServedKinds();
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      this.holders--;
      if (this.holders === 0) await this.stop();
    };
  }

  snapshot(): NativePolicySnapshot {
    if (this.informers.size === 0) return NO_NATIVE_POLICIES;
    this.current ??= {
      validating: this.objects('ValidatingAdmissionPolicy').filter(isNativePolicyReportable),
      validatingBindings: this.objects('ValidatingAdmissionPolicyBinding'),
      mutating: this.objects('MutatingAdmissionPolicy').filter(isNativePolicyReportable),
      mutatingBindings: this.objects('MutatingAdmissionPolicyBinding'),
    };
    return this.current;
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.stop();
  }

  /** One informer per kind served; kinds not served are looked for again later. */
  private async watchServedKinds(): Promise<void> {
    const missing: NativeKind[] = [];
    for (const kind of this.kinds) {
      if (this.informers.has(kind)) continue;
      let apiVersion: string | undefined;
      try {
        const served = await servedTypes(this.discovery, kind);
        apiVersion = served.find((type) => type.group === ADMISSION_REGISTRATION_GROUP)?.apiVersion;
      } catch (error) {
        this.logger.warn(`discovering ${kind}: ${errorMessage(error)}`);
      }
      if (!apiVersion) {
        missing.push(kind);
        continue;
      }
      const informer = new Informer<KubeObject>(
        resourceListWatch(this.resources, {
          apiVersion,
          kind,
          watchTimeoutSeconds: this.config.watchTimeoutSeconds,
        }),
        { name: `${apiVersion}/${kind}`, logger: { warn: (message) => this.logger.warn(message) } },
      );
      const changed = () => this.changed();
      informer.on('add', changed);
      informer.on('update', (object, previous) => {
        if (object.metadata?.resourceVersion !== previous.metadata?.resourceVersion) changed();
      });
      informer.on('delete', changed);
      this.informers.set(kind, informer);
      this.versions.set(kind, apiVersion);
      informer.start();
    }
    await Promise.all(
      [...this.informers.values()].map((informer) =>
        informer.waitForSync(60_000).catch((error) => this.logger.warn(errorMessage(error))),
      ),
    );
    if (missing.length > 0) {
      // Kyverno's reports controller refuses to start without MutatingAdmissionPolicies served; this
      // one says so and keeps looking, so the other reports go on.
      this.logger.error(`${missing.join(', ')} not served by the API server: no reports for them until it serves them`);
      this.discovery.invalidate(ADMISSION_REGISTRATION_GROUP);
      this.retry = setTimeout(() => {
        this.retry = undefined;
        if (this.holders > 0) void this.watchServedKinds().then(() => this.changed());
      }, DISCOVERY_RETRY_MS);
      this.retry.unref?.();
    }
  }

  private objects(kind: NativeKind): JsonObject[] {
    const apiVersion = this.versions.get(kind) ?? '';
    const items = (this.informers.get(kind)?.list() ?? []) as unknown as JsonObject[];
    return items
      .map((item) => ({ ...item, apiVersion: item.apiVersion ?? apiVersion, kind: item.kind ?? kind }))
      .sort((a, b) => (nameOf(a) < nameOf(b) ? -1 : 1));
  }

  private changed(): void {
    this.current = undefined;
    for (const listener of [...this.listeners]) listener();
  }

  private async stop(): Promise<void> {
    clearTimeout(this.retry);
    this.retry = undefined;
    const informers = [...this.informers.values()];
    this.informers.clear();
    this.versions.clear();
    this.current = undefined;
    await Promise.all(informers.map((informer) => informer.stop()));
  }
}

function nameOf(object: JsonObject): string {
  const metadata = object.metadata as { name?: unknown } | undefined;
  return typeof metadata?.name === 'string' ? metadata.name : '';
}
