/**
 * One pass of the admission policy generator, as Kyverno's admissionpolicy-generator controller
 * reconciles: every ClusterPolicy with validate rules and every ValidatingPolicy (VAP generation
 * on) and every MutatingPolicy (MAP generation on, or asked for by the policy itself) gets its
 * generated policy and binding created, updated or deleted, and its status written (generated, and
 * why not). Generated objects whose source policy is gone are deleted. The pass compares before it
 * writes, so running it twice (a second leader, a resync) changes nothing.
 *
 * Events, as Kyverno's NewValidatingAdmissionPolicyEvent: each ValidatingAdmissionPolicy generated
 * from a ClusterPolicy or ValidatingPolicy is two `PolicyApplied` Events on the source policy (one
 * related to the policy, one to its binding), from the generate controller's source. Kyverno emits
 * them on every successful reconcile; the pass emits them when it wrote the pair (a resync that
 * changes nothing stays quiet). Kyverno emits none for MutatingAdmissionPolicies.
 */
import type { Policy, PolicyException } from '@edict/engine';
import {
  buildClusterPolicyVap,
  buildMutatingPolicyMap,
  buildValidatingPolicyVap,
  canGenerateVap,
  generatedBindingName,
  generatedPolicyName,
  mutatingAdmissionPolicyRequested,
  type CelPolicyExceptionObject,
  type GeneratedObject,
  type GenerationDecision,
  type KindResolver,
  type MutatingAdmissionPolicyVersion,
  type MutatingPolicyObject,
  type ValidatingPolicyObject,
} from '@edict/cel-policies';
import { compileWildcard, isObject, type JsonObject, type KubeObject } from '@edict/foundation';
import type { EventInput } from '@edict/kube';

/** Kyverno's two feature flags. */
export interface GeneratorFlags {
  readonly generateValidatingAdmissionPolicy: boolean;
  readonly generateMutatingAdmissionPolicy: boolean;
}

/** What the pass reads (informer caches) and writes (the API server). */
export interface GeneratorStore {
  clusterPolicies(): readonly Policy[];
  policyExceptions(): readonly PolicyException[];
  validatingPolicies(): readonly ValidatingPolicyObject[];
  mutatingPolicies(): readonly MutatingPolicyObject[];
  celExceptions(): readonly CelPolicyExceptionObject[];
  /** The stored generated kinds: ValidatingAdmissionPolicy(Binding), MutatingAdmissionPolicy(Binding). */
  existing(kind: GeneratedKind): readonly KubeObject[];
  /** Resolves the kinds of one pass through discovery. */
  kindResolver(kinds: readonly string[]): Promise<KindResolver>;
  /** The version the cluster serves MutatingAdmissionPolicies in (v1, v1beta1, v1alpha1), if any. */
  mutatingVersion(): MutatingAdmissionPolicyVersion | undefined;
  create(object: GeneratedObject): Promise<void>;
  /** Replaces `stored` (its resourceVersion) with `desired`. */
  replace(desired: GeneratedObject, stored: KubeObject): Promise<void>;
  remove(object: KubeObject): Promise<void>;
  /** Whether this controller may create, update, list and delete `resource` (admissionregistration `version`). */
  permitted(resource: string, version: string): Promise<boolean>;
  /** Writes the generator's status fields on the source policy when they differ. */
  writeStatus(source: SourceRef, status: GeneratorStatus): Promise<void>;
}

export type GeneratedKind =
  | 'ValidatingAdmissionPolicy'
  | 'ValidatingAdmissionPolicyBinding'
  | 'MutatingAdmissionPolicy'
  | 'MutatingAdmissionPolicyBinding';

export interface SourceRef {
  readonly kind: 'ClusterPolicy' | 'ValidatingPolicy' | 'MutatingPolicy';
  readonly name: string;
  readonly uid?: string;
}

/** Kyverno's event source of the generate controller (its reportingController). */
export const GENERATE_POLICY_EVENT_SOURCE = 'kyverno-generate';

/** Kyverno's NewValidatingAdmissionPolicyEvent: the policy's and the binding's Events on the source. */
export function validatingAdmissionPolicyEvents(source: SourceRef, vapName: string, bindingName: string): EventInput[] {
  // Kyverno writes kyverno.io/v1 and v1alpha1 whatever the kinds' versions; so does Edict.
  const regarding = { apiVersion: 'kyverno.io/v1', kind: source.kind, name: source.name, uid: source.uid };
  const related = (kind: string, name: string) => ({ apiVersion: 'admissionregistration.k8s.io/v1alpha1', kind, name });
  const event = (kind: string, name: string, what: string): EventInput => ({
    regarding,
    related: related(kind, name),
    type: 'Normal',
    reason: 'PolicyApplied',
    action: 'Resource Generated',
    note: `successfully generated ${what} ${name} from policy ${source.name}`,
  });
  return [
    event('ValidatingAdmissionPolicy', vapName, 'validating admission policy'),
    event('ValidatingAdmissionPolicyBinding', bindingName, 'validating admission policy binding'),
  ];
}

export interface GenerationPassOptions {
  readonly log?: (message: string) => void;
  /** Receives the pass's Events (the generator records them; Kyverno's --omitEvents applies there). */
  readonly emit?: (events: EventInput[]) => void;
}

export interface GeneratorStatus {
  readonly generated: boolean;
  readonly message: string;
}

const SOURCE_KINDS = new Set(['ClusterPolicy', 'ValidatingPolicy', 'MutatingPolicy']);

export class GenerationPass {
  constructor(
    private readonly store: GeneratorStore,
    private readonly flags: GeneratorFlags,
    private readonly options: GenerationPassOptions = {},
  ) {}

  private log(message: string): void {
    this.options.log?.(message);
  }

  async run(): Promise<void> {
    const keep = new Set<string>();
    const errors: string[] = [];
    const attempt = async (what: string, work: () => Promise<void>): Promise<void> => {
      try {
        await work();
      } catch (error) {
        errors.push(`${what}: ${error instanceof Error ? error.message : String(error)}`);
      }
    };
    const vapDenied = this.flags.generateValidatingAdmissionPolicy
      ? await this.missingPermission('ValidatingAdmissionPolicies', 'validatingadmissionpolicies', 'v1')
      : undefined;
    if (this.flags.generateValidatingAdmissionPolicy && vapDenied !== undefined) {
      // Kyverno says so on each policy and leaves what exists alone.
      for (const object of [
        ...this.existing('ValidatingAdmissionPolicy'),
        ...this.existing('ValidatingAdmissionPolicyBinding'),
      ]) {
        keep.add(keyOf(object));
      }
      for (const policy of this.store.clusterPolicies().filter(hasValidateRules)) {
        await attempt(`ClusterPolicy ${policy.metadata.name}`, () =>
          this.store.writeStatus(
            { kind: 'ClusterPolicy', name: policy.metadata.name },
            { generated: false, message: vapDenied },
          ),
        );
      }
      for (const policy of this.store.validatingPolicies()) {
        const name = policy.metadata?.name ?? '';
        await attempt(`ValidatingPolicy ${name}`, () =>
          this.store.writeStatus({ kind: 'ValidatingPolicy', name }, { generated: false, message: vapDenied }),
        );
      }
    } else if (this.flags.generateValidatingAdmissionPolicy) {
      const policies = this.store.clusterPolicies().filter(hasValidateRules);
      const kinds = policies.flatMap(kindsOf);
      const resolver = await this.store.kindResolver(kinds);
      for (const policy of policies) {
        await attempt(`ClusterPolicy ${policy.metadata.name}`, () => this.clusterPolicy(policy, resolver, keep));
      }
      for (const policy of this.store.validatingPolicies()) {
        await attempt(`ValidatingPolicy ${policy.metadata?.name}`, () => this.validatingPolicy(policy, keep));
      }
    } else {
      // Not reconciled: what was generated stays, as Kyverno leaves it.
      for (const object of [
        ...this.existing('ValidatingAdmissionPolicy'),
        ...this.existing('ValidatingAdmissionPolicyBinding'),
      ]) {
        keep.add(keyOf(object));
      }
    }
    const version = this.store.mutatingVersion();
    const mapDenied = version
      ? await this.missingPermission('MutatingAdmissionPolicies', 'mutatingadmissionpolicies', version)
      : undefined;
    for (const policy of this.store.mutatingPolicies()) {
      if (policy.metadata?.namespace) continue;
      // Kyverno: with the flag off, only a policy that asks for a MAP itself is reconciled.
      if (!this.flags.generateMutatingAdmissionPolicy && !mutatingAdmissionPolicyRequested(policy)) {
        for (const object of this.ownedBy('MutatingPolicy', policy.metadata?.uid)) keep.add(keyOf(object));
        continue;
      }
      if (mapDenied !== undefined) {
        for (const object of this.ownedBy('MutatingPolicy', policy.metadata?.uid)) keep.add(keyOf(object));
        const name = policy.metadata?.name ?? '';
        await attempt(`MutatingPolicy ${name}`, () =>
          this.store.writeStatus({ kind: 'MutatingPolicy', name }, { generated: false, message: mapDenied }),
        );
        continue;
      }
      await attempt(`MutatingPolicy ${policy.metadata?.name}`, () => this.mutatingPolicy(policy, version, keep));
    }
    await attempt('orphans', () => this.removeOrphans(keep));
    if (errors.length > 0) throw new Error(`admission policy generation failed: ${errors.join('; ')}`);
  }

  private async clusterPolicy(policy: Policy, resolve: KindResolver, keep: Set<string>): Promise<void> {
    const source: SourceRef = { kind: 'ClusterPolicy', name: policy.metadata.name, uid: policy.metadata.uid };
    const exceptions = this.store
      .policyExceptions()
      .filter((e) => namesRule(e, policy.metadata.name, policy.spec.rules?.[0]?.name ?? ''));
    const eligible = canGenerateVap(policy, exceptions);
    let decision: GenerationDecision;
    if (!eligible.ok) decision = { generate: false, message: eligible.message };
    else {
      try {
        decision = { generate: true, objects: buildClusterPolicyVap(policy, exceptions, resolve) };
      } catch (error) {
        const message = `failed to build validatingadmissionpolicy ${generatedPolicyName('ClusterPolicy', policy.metadata.name)}: ${error instanceof Error ? error.message : String(error)}`;
        await this.store.writeStatus(source, { generated: false, message });
        throw new Error(message);
      }
    }
    await this.apply(source, decision, 'ValidatingAdmissionPolicy', keep);
  }

  private async validatingPolicy(policy: ValidatingPolicyObject, keep: Set<string>): Promise<void> {
    const name = policy.metadata?.name ?? '';
    const exceptions = this.store.celExceptions().filter((e) => namesPolicy(e, name));
    await this.apply(
      { kind: 'ValidatingPolicy', name, uid: policy.metadata?.uid },
      buildValidatingPolicyVap(policy, exceptions),
      'ValidatingAdmissionPolicy',
      keep,
    );
  }

  private async mutatingPolicy(
    policy: MutatingPolicyObject,
    version: MutatingAdmissionPolicyVersion | undefined,
    keep: Set<string>,
  ): Promise<void> {
    const name = policy.metadata?.name ?? '';
    const source: SourceRef = { kind: 'MutatingPolicy', name };
    if (!version) {
      if (mutatingAdmissionPolicyRequested(policy)) {
        const message =
          'skip generating MutatingAdmissionPolicy: requested but no MutatingAdmissionPolicy API/informers are available.';
        await this.store.writeStatus(source, { generated: false, message });
      }
      return;
    }
    const exceptions = this.store.celExceptions().filter((e) => namesPolicy(e, name));
    await this.apply(source, buildMutatingPolicyMap(policy, exceptions, version), 'MutatingAdmissionPolicy', keep);
  }

  /** Creates or updates the pair (kept), or leaves it out to be deleted; then the source's status. */
  private async apply(
    source: SourceRef,
    decision: GenerationDecision,
    kind: 'ValidatingAdmissionPolicy' | 'MutatingAdmissionPolicy',
    keep: Set<string>,
  ): Promise<void> {
    if (decision.generate) {
      let wrote = false;
      for (const desired of [decision.objects.policy, decision.objects.binding]) {
        const stored = this.existing(desired.kind as GeneratedKind).find(
          (o) => o.metadata?.name === desired.metadata.name,
        );
        keep.add(`${desired.kind}/${desired.metadata.name}`);
        if (stored && sameGenerated(stored, desired)) continue;
        if (stored) await this.store.replace(desired, stored);
        else await this.store.create(desired);
        wrote = true;
      }
      this.log(`generated ${kind} ${decision.objects.policy.metadata.name} from ${source.kind} ${source.name}`);
      await this.store.writeStatus(source, { generated: true, message: '' });
      if (wrote && kind === 'ValidatingAdmissionPolicy') {
        const { policy, binding } = decision.objects;
        this.options.emit?.(validatingAdmissionPolicyEvents(source, policy.metadata.name, binding.metadata.name));
      }
      return;
    }
    await this.store.writeStatus(source, { generated: false, message: decision.message });
  }

  /** Generated objects no policy keeps: their source is gone, or no longer generates them. */
  private async removeOrphans(keep: Set<string>): Promise<void> {
    const kinds: GeneratedKind[] = [
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionPolicyBinding',
      'MutatingAdmissionPolicy',
      'MutatingAdmissionPolicyBinding',
    ];
    for (const kind of kinds) {
      for (const object of this.existing(kind)) {
        if (keep.has(keyOf(object)) || !isGeneratedByKyverno(object)) continue;
        await this.store.remove(object);
      }
    }
  }

  /** Kyverno's message when the policies or their bindings may not be written, else undefined. */
  private async missingPermission(what: string, resource: string, version: string): Promise<string | undefined> {
    if (!(await this.store.permitted(resource, version))) return `insufficient permissions to generate ${what}`;
    const binding = `${resource.slice(0, -'ies'.length)}ybindings`;
    if (!(await this.store.permitted(binding, version))) {
      return `insufficient permissions to generate ${what.slice(0, -'ies'.length)}yBindings`;
    }
    return undefined;
  }

  private existing(kind: GeneratedKind): readonly KubeObject[] {
    return this.store.existing(kind);
  }

  private ownedBy(kind: SourceRef['kind'], uid: string | undefined): KubeObject[] {
    const all = [...this.existing('MutatingAdmissionPolicy'), ...this.existing('MutatingAdmissionPolicyBinding')];
    return all.filter((o) => ownerOf(o)?.kind === kind && ownerOf(o)?.uid === uid);
  }
}

/** A generated object: labelled managed by Kyverno, owned by a ClusterPolicy, ValidatingPolicy or MutatingPolicy, named as Kyverno names them. */
export function isGeneratedByKyverno(object: KubeObject): boolean {
  const owner = ownerOf(object);
  if (object.metadata?.labels?.['app.kubernetes.io/managed-by'] !== 'kyverno' || !owner) return false;
  if (!SOURCE_KINDS.has(owner.kind)) return false;
  const base = generatedPolicyName(owner.kind as SourceRef['kind'], owner.name);
  return object.metadata?.name === base || object.metadata?.name === generatedBindingName(base);
}

function ownerOf(object: KubeObject): { kind: string; name: string; uid?: string } | undefined {
  const refs = (object.metadata as { ownerReferences?: unknown } | undefined)?.ownerReferences;
  const first = Array.isArray(refs) ? refs.find(isObject) : undefined;
  return first && typeof first.kind === 'string' && typeof first.name === 'string'
    ? { kind: first.kind, name: first.name, uid: typeof first.uid === 'string' ? first.uid : undefined }
    : undefined;
}

function keyOf(object: KubeObject): string {
  return `${object.kind}/${object.metadata?.name}`;
}

/** Whether the stored object already says what the generator wants (spec, labels, owner). */
function sameGenerated(stored: KubeObject, desired: GeneratedObject): boolean {
  const labels = stored.metadata?.labels ?? {};
  const labelsOk = Object.entries(desired.metadata.labels).every(([k, v]) => labels[k] === v);
  const owners = (stored.metadata as { ownerReferences?: JsonObject[] } | undefined)?.ownerReferences ?? [];
  const ownerOk = desired.metadata.ownerReferences.every((want) =>
    owners.some((have) => have.uid === want.uid && have.kind === want.kind && have.name === want.name),
  );
  return labelsOk && ownerOk && contains((stored as JsonObject).spec, desired.spec);
}

/** `have` holds every field of `want` (the API server adds defaults the generator does not write). */
function contains(have: unknown, want: unknown): boolean {
  if (Array.isArray(want)) {
    return Array.isArray(have) && have.length === want.length && want.every((w, i) => contains(have[i], w));
  }
  if (isObject(want as never)) {
    if (!isObject(have as never)) return false;
    return Object.entries(want as JsonObject).every(([k, v]) => contains((have as JsonObject)[k], v));
  }
  return have === want;
}

function hasValidateRules(policy: Policy): boolean {
  return (policy.spec?.rules ?? []).some((rule) => rule.validate !== undefined && rule.validate !== null);
}

function kindsOf(policy: Policy): string[] {
  const rule = policy.spec?.rules?.[0];
  const blocks = [rule?.match, rule?.exclude].filter((b) => b !== undefined);
  return blocks.flatMap((block) => [
    ...(block?.resources?.kinds ?? []),
    ...[...(block?.any ?? []), ...(block?.all ?? [])].flatMap((f) => f.resources?.kinds ?? []),
  ]);
}

/** Kyverno's PolicyException.Contains: an entry names the policy and the rule (wildcards allowed). */
function namesRule(exception: PolicyException, policy: string, rule: string): boolean {
  return (exception.spec?.exceptions ?? []).some(
    (entry) =>
      compileWildcard(entry.policyName ?? '')(policy) && (entry.ruleNames ?? []).some((r) => compileWildcard(r)(rule)),
  );
}

/** A CEL PolicyException's policyRefs name the policy (Kyverno compares names). */
function namesPolicy(exception: CelPolicyExceptionObject, name: string): boolean {
  return (exception.spec?.policyRefs ?? []).some((ref) => ref.name === name);
}
