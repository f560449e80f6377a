/**
 * Scans one resource in the background, as Kyverno's background scan controller does: the
 * background policies that may apply are evaluated on the object as it is now (operation CREATE,
 * no admission request), and their results go into a background scan EphemeralReport for the
 * aggregation to merge; violations become `kyverno-scan` Events.
 *
 * A resource is evaluated again only when its hash (what policies see) or its policies' versions
 * changed, also on the periodic passes. What is remembered per resource is small and fixed-size: its
 * uid, hash, resourceVersion and the policy set's signature (shared between resources) — never the
 * object.
 */
import {
  IMAGE_VALIDATING_POLICY_SOURCE,
  isPolicyReportable,
  mutatingPolicyReportResults,
  reportResults,
  validatingPolicyReportResults,
  type ReportResult,
} from '@edict/admission';
import type {
  CelPolicyInput,
  CompiledImageValidatingPolicy,
  CompiledMutatingPolicy,
  CompiledValidatingPolicy,
  MutatingPolicyResult,
} from '@edict/cel-policies';
import type { PolicyResponse, ResourceRequest } from '@edict/engine';
import type { KubeObject, ObjectHeader } from '@edict/foundation';
import type { EventInput } from '@edict/kube';
import type { CachedPolicy, PolicySnapshot } from '@edict/policy';
import {
  allowedResults,
  buildBackgroundReport,
  ephemeralReportKind,
  REPORTS_API_VERSION,
  resourceHash,
  toPolicyReportResult,
  type PolicyReportResult,
  type ReportPolicy,
  type ReportPolicyKind,
  type ReportResultType,
} from '@edict/reports';
import type { ReportsCluster } from '../aggregation/reports-cluster';
import { backgroundPoliciesFor } from './background-policies';
import { backgroundMutationResponse, scansMutatingPolicy } from './background-mutating-policies';
import {
  backgroundValidatingPoliciesFor,
  validatingPoliciesSignature,
  type ScannedCelPolicy,
  type ScannedResource,
} from './background-validating-policies';
import { scanEvents } from './scan-events';
import type { NativePolicyScans } from './native-policy-scans';

interface ScanMemory {
  readonly hash: string;
  readonly resourceVersion: string;
  readonly signature: string;
}

/** What the scan needs beyond the cluster: the engine, the policies, and where its effects go. */
export interface ScannerDependencies {
  validate(policy: CachedPolicy, request: ResourceRequest): Promise<PolicyResponse>;
  snapshot(): PolicySnapshot;
  /** The cap: false while too many intermediate reports exist. */
  mayWriteReport(): boolean;
  recordEvents(events: readonly EventInput[]): void;
  /** Each policy response of an evaluation, for the policy results metric. */
  onResponse?(policy: CachedPolicy, response: PolicyResponse): void;
  /** Kyverno's ValidatingPolicies, scanned beside the classic policies (absent: none). */
  validatingPolicies?: ValidatingPolicyScans;
  /** Kyverno's ImageValidatingPolicies, scanned after them (absent: none). */
  imageValidatingPolicies?: ImageValidatingPolicyScans;
  /** Kyverno's MutatingPolicies, reported on (never applied) after them (absent: none). */
  mutatingPolicies?: MutatingPolicyScans;
  /** Kubernetes' ValidatingAdmissionPolicies and MutatingAdmissionPolicies that opted into reports (absent: none). */
  nativePolicies?: NativePolicyScans;
  /** Kyverno's --policyReports: false evaluates (Events stand) but stores no report. Default true. */
  policyReports?: boolean;
  /** Kyverno's --allowedResults: the result types the report keeps (empty or absent: all). */
  allowedResults?: readonly ReportResultType[];
  now?: () => number;
}

/**
 * What scanning ImageValidatingPolicies takes: the policies served, and their engine, which
 * evaluates those of one resource together (an image one verified counts for another's `required`).
 */
export interface ImageValidatingPolicyScans {
  policies(): readonly CompiledImageValidatingPolicy[];
  /** The versions of the CEL PolicyExceptions in force (part of what a resource's scan memory compares). */
  exceptionsSignature(): string;
  /** One response (or none: not applied) per policy, in their order. */
  evaluate(
    policies: readonly CompiledImageValidatingPolicy[],
    input: CelPolicyInput,
  ): Promise<ReadonlyArray<PolicyResponse | undefined>>;
  onResponse?(compiled: CompiledImageValidatingPolicy, response: PolicyResponse, seconds: number): void;
}

/** What scanning ValidatingPolicies takes: the policies served and their engine. */
export interface ValidatingPolicyScans {
  policies(): readonly CompiledValidatingPolicy[];
  /**
   * The versions of the CEL PolicyExceptions in force: a resource is evaluated again when they
   * change (an exception may turn a result into a skip or a pass, or back).
   */
  exceptionsSignature(): string;
  /** undefined when the policy does not apply to the resource. */
  evaluate(compiled: CompiledValidatingPolicy, input: CelPolicyInput): Promise<PolicyResponse | undefined>;
  /** Each evaluation that applied, with its time, for the kyverno_validating_policy_* metrics. */
  onResponse?(compiled: CompiledValidatingPolicy, response: PolicyResponse, seconds: number): void;
}

/** What scanning MutatingPolicies takes: the policies served and their engine. */
export interface MutatingPolicyScans {
  policies(): readonly CompiledMutatingPolicy[];
  /** The versions of the CEL PolicyExceptions in force (part of what a resource's scan memory compares). */
  exceptionsSignature(): string;
  /** undefined when the policy does not apply to the resource. */
  evaluate(compiled: CompiledMutatingPolicy, input: CelPolicyInput): Promise<MutatingPolicyResult | undefined>;
  /** Each evaluation that applied, with its time, for the kyverno_mutating_policy_* metrics. */
  onResponse?(compiled: CompiledMutatingPolicy, result: MutatingPolicyResult, seconds: number): void;
}

/** What one scan gathers: result rows, Events and the CEL policies its report labels. */
interface ScanFindings {
  readonly results: PolicyReportResult[];
  readonly events: EventInput[];
  readonly reported: ReportPolicy[];
}

export type ScanOutcome = 'evaluated' | 'unchanged' | 'no-policies' | 'capped';

export class ResourceScanner {
  private readonly memory = new Map<string, ScanMemory>();
  private readonly now: () => number;

  constructor(
    private readonly cluster: ReportsCluster,
    private readonly deps: ScannerDependencies,
  ) {
    this.now = deps.now ?? Date.now;
  }

  /** True when the resource was scanned at `resourceVersion`: no read needed. */
  isCurrent(uid: string, resourceVersion: string | undefined): boolean {
    return this.memory.get(uid)?.resourceVersion === resourceVersion;
  }

  forget(uid: string): void {
    this.memory.delete(uid);
  }

  /** Forgets every resource (leadership lost: the next leader starts afresh). */
  clear(): void {
    this.memory.clear();
  }

  /**
   * `resource`: the object's group, version and plural, which ValidatingPolicies match on; without
   * it only the classic policies scan the object.
   */
  async scan(object: KubeObject, resource?: ScannedResource): Promise<ScanOutcome> {
    const uid = object.metadata?.uid;
    const name = object.metadata?.name;
    if (!uid || !name || !object.apiVersion || !object.kind) return 'no-policies';
    const namespace = object.metadata?.namespace || undefined;
    const slash = object.apiVersion.indexOf('/');
    const gvk = {
      group: slash < 0 ? '' : object.apiVersion.slice(0, slash),
      version: object.apiVersion.slice(slash + 1),
      kind: object.kind,
    };
    const classic = backgroundPoliciesFor(this.deps.snapshot(), gvk, namespace);
    const cel =
      resource && this.deps.validatingPolicies
        ? backgroundValidatingPoliciesFor(this.deps.validatingPolicies.policies(), resource, namespace)
        : [];
    const image =
      resource && this.deps.imageValidatingPolicies
        ? backgroundValidatingPoliciesFor(this.deps.imageValidatingPolicies.policies(), resource, namespace)
        : [];
    const mutating =
      resource && this.deps.mutatingPolicies
        ? backgroundValidatingPoliciesFor(this.deps.mutatingPolicies.policies(), resource, namespace)
        : [];
    const native = resource ? this.deps.nativePolicies?.select(resource) : undefined;
    const celPolicies: ScannedCelPolicy[] = [...cel, ...image, ...mutating];
    const set = {
      policies: classic.policies,
      signature:
        (celPolicies.length > 0
          ? `${classic.signature}|${validatingPoliciesSignature(celPolicies)}|${this.celExceptionsSignature()}`
          : classic.signature) + (native ? `|native:${native.signature}` : ''),
    };
    const hash = resourceHash(object as Record<string, unknown>);
    const resourceVersion = object.metadata?.resourceVersion ?? '';
    const entry = this.memory.get(uid);
    if (entry && entry.hash === hash && entry.signature === set.signature) {
      if (entry.resourceVersion !== resourceVersion) this.memory.set(uid, { ...entry, resourceVersion });
      return 'unchanged';
    }
    const remember = () => this.memory.set(uid, { hash, resourceVersion, signature: set.signature });
    if (set.policies.length === 0 && celPolicies.length === 0 && !native) {
      remember();
      return 'no-policies';
    }
    if (!this.deps.mayWriteReport()) return 'capped';

    const scannedAt = new Date(this.now());
    const namespaceObject = namespace ? await this.namespaceObject(namespace) : undefined;
    const request: ResourceRequest = {
      resource: object,
      operation: 'CREATE',
      ...(namespace ? { namespaceLabels: namespaceObject?.metadata?.labels ?? {} } : {}),
    };
    const findings: ScanFindings = { results: [], events: [], reported: [] };
    const { results, events } = findings;
    for (const policy of set.policies) {
      const response = await this.deps.validate(policy, request);
      this.deps.onResponse?.(policy, response);
      for (const result of reportResults(policy.compiled, response, request, scannedAt))
        results.push(toPolicyReportResult(result));
      events.push(...scanEvents(response, uid, policy.uid));
    }
    if (resource) {
      const input: CelPolicyInput = { request, resource, namespaceObject: namespaceObject ?? null };
      const validating = this.deps.validatingPolicies;
      if (validating)
        await this.scanCelPolicies(cel, findings, uid, async (compiled) => {
          const started = performance.now();
          const response = await validating.evaluate(compiled, input);
          if (!response || response.rules.length === 0) return undefined;
          validating.onResponse?.(compiled, response, (performance.now() - started) / 1000);
          return { response, rows: validatingPolicyReportResults(compiled, response, request, scannedAt) };
        });
      if (image.length > 0) {
        const started = performance.now();
        const responses = await this.deps.imageValidatingPolicies!.evaluate(image, input);
        const seconds = (performance.now() - started) / 1000 / image.length;
        image.forEach((compiled, i) => {
          const response = responses[i];
          const applied = response !== undefined && response.rules.length > 0;
          if (applied) this.deps.imageValidatingPolicies!.onResponse?.(compiled, response, seconds);
          recordCelPolicy(
            compiled,
            findings,
            uid,
            applied
              ? {
                  response,
                  rows: validatingPolicyReportResults(
                    compiled,
                    response,
                    request,
                    scannedAt,
                    IMAGE_VALIDATING_POLICY_SOURCE,
                  ),
                }
              : undefined,
          );
        });
      }
      const mutatingScans = this.deps.mutatingPolicies;
      if (mutatingScans)
        await this.scanCelPolicies(mutating, findings, uid, async (compiled) => {
          if (!scansMutatingPolicy(compiled)) return undefined;
          const started = performance.now();
          const result = await mutatingScans.evaluate(compiled, input);
          if (!result || result.response.rules.length === 0) return undefined;
          mutatingScans.onResponse?.(compiled, result, (performance.now() - started) / 1000);
          const response = backgroundMutationResponse(result);
          return { response, rows: mutatingPolicyReportResults({ compiled, response }, request, scannedAt) };
        });
    }
    if (native && resource) {
      const scanned = await this.deps.nativePolicies!.evaluate(
        native,
        object,
        resource,
        namespaceObject ?? null,
        scannedAt,
      );
      results.push(...scanned.results);
      findings.reported.push(...scanned.policies);
      events.push(...scanned.events);
    }
    // Policies labelled reports.kyverno.io/disabled are evaluated (their Events stand) but not reported.
    const reported = [
      ...set.policies.filter((policy) => isPolicyReportable(policy.compiled.policy)),
      ...findings.reported,
    ];
    if (reported.length > 0 && this.deps.policyReports !== false)
      await this.writeReport(
        buildBackgroundReport({
          resource: {
            apiVersion: object.apiVersion,
            kind: object.kind,
            name,
            uid,
            ...(namespace ? { namespace } : {}),
          },
          resourceHash: hash,
          policies: reported,
          results: allowedResults(results, this.deps.allowedResults ?? []),
          scannedAt,
        }),
      );
    this.deps.recordEvents(events);
    remember();
    return 'evaluated';
  }

  /** Evaluates CEL policies one by one, recording each (recordCelPolicy). */
  private async scanCelPolicies<T extends ReportedCelPolicy>(
    policies: readonly T[],
    findings: ScanFindings,
    uid: string,
    evaluate: (compiled: T) => Promise<CelAnswer | undefined>,
  ): Promise<void> {
    for (const compiled of policies) recordCelPolicy(compiled, findings, uid, await evaluate(compiled));
  }

  private celExceptionsSignature(): string {
    return (
      this.deps.validatingPolicies?.exceptionsSignature() ??
      this.deps.imageValidatingPolicies?.exceptionsSignature() ??
      this.deps.mutatingPolicies?.exceptionsSignature() ??
      ''
    );
  }

  private async namespaceObject(namespace: string): Promise<KubeObject | undefined> {
    return (await this.cluster.find({ apiVersion: 'v1', kind: 'Namespace', name: namespace })) ?? undefined;
  }

  /** Creates the report, or replaces one the aggregation has not merged yet (this scan supersedes it). */
  private async writeReport(report: ObjectHeader): Promise<void> {
    const existing = await this.cluster.find({
      apiVersion: REPORTS_API_VERSION,
      kind: ephemeralReportKind(report.metadata?.namespace),
      name: report.metadata!.name!,
      ...(report.metadata?.namespace ? { namespace: report.metadata.namespace } : {}),
    });
    if (!existing) await this.cluster.create(report);
    else
      await this.cluster.replace({
        ...report,
        metadata: { ...report.metadata, resourceVersion: existing.metadata?.resourceVersion },
      });
  }
}

/** A CEL policy as a scan reports it. */
type ReportedCelPolicy = ScannedCelPolicy & { readonly kind: ReportPolicyKind };

/** What a CEL policy answered on the resource. */
interface CelAnswer {
  readonly response: PolicyResponse;
  readonly rows: readonly ReportResult[];
}

/** A reportable CEL policy labels the report; what it answered adds its rows and its Events. */
function recordCelPolicy(compiled: ReportedCelPolicy, findings: ScanFindings, uid: string, answer?: CelAnswer): void {
  if (isPolicyReportable(compiled.policy)) findings.reported.push(reportedCelPolicy(compiled));
  if (!answer) return;
  for (const row of answer.rows) findings.results.push(toPolicyReportResult(row));
  findings.events.push(...scanEvents(answer.response, uid, compiled.policy.metadata?.uid));
}

/** How a background report labels a CEL policy (ValidatingPolicy, ImageValidatingPolicy, MutatingPolicy) it evaluated. */
function reportedCelPolicy(compiled: ReportedCelPolicy): ReportPolicy {
  const resourceVersion = compiled.policy.metadata?.resourceVersion;
  return {
    kind: compiled.kind,
    name: compiled.name,
    ...(compiled.namespace ? { namespace: compiled.namespace } : {}),
    ...(resourceVersion ? { resourceVersion } : {}),
  };
}
