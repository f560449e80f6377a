/**
 * The CEL policy family as the cluster holds it: every ValidatingPolicy, ImageValidatingPolicy,
 * MutatingPolicy and GeneratingPolicy (with their Namespaced forms) and policies.kyverno.io
 * PolicyException, each compiled once per version (generation, else resourceVersion: a status write
 * does not recompile), with the compiler's field errors when it does not compile. Only compiled (Ready) policies are served; exceptions only from the namespaces
 * exceptions are allowed in (as classic PolicyExceptions), and not once they have expired.
 * Pure: no Nest, no I/O; the Nest cache (cel-policy-cache.ts) feeds it from informers.
 */
import {
  compileCelPolicyException,
  compileGeneratingPolicy,
  compileImageValidatingPolicy,
  compileMutatingPolicy,
  compileValidatingPolicy,
  ValidatingPolicyError,
  type CompiledCelPolicyException,
  type CompiledGeneratingPolicy,
  type CompiledImageValidatingPolicy,
  type CompiledMutatingPolicy,
  type CompiledValidatingPolicy,
  type PolicyFieldError,
} from '@edict/cel-policies';
import { errorMessage, wildcardMatch, type KubeObject } from '@edict/foundation';
import {
  CEL_POLICY_KINDS,
  isGeneratingPolicyKind,
  isImagePolicyKind,
  isMutatingPolicyKind,
  isNamespacedCelPolicyKind,
  isValidatingPolicyKind,
  type CelPolicyKind,
} from './cel-policy-kinds';

/** Compiles one object; throws ValidatingPolicyError (field errors) or any error. Injectable for specs. */
export interface CelPolicyCompilers {
  readonly policy: (object: KubeObject) => CompiledValidatingPolicy;
  readonly exception: (object: KubeObject) => CompiledCelPolicyException;
  /** ImageValidatingPolicy and its Namespaced form (default: @edict/cel-policies'). */
  readonly imagePolicy?: (object: KubeObject) => CompiledImageValidatingPolicy;
  /** MutatingPolicy and its Namespaced form (default: @edict/cel-policies'). */
  readonly mutatingPolicy?: (object: KubeObject) => CompiledMutatingPolicy;
  /** GeneratingPolicy and its Namespaced form (default: @edict/cel-policies'). */
  readonly generatingPolicy?: (object: KubeObject) => CompiledGeneratingPolicy;
}

export const CEL_POLICY_COMPILERS: CelPolicyCompilers = {
  policy: compileValidatingPolicy,
  exception: compileCelPolicyException,
  imagePolicy: compileImageValidatingPolicy,
  mutatingPolicy: compileMutatingPolicy,
  generatingPolicy: compileGeneratingPolicy,
};

/** What a stored policy compiles to, by family. */
export type CompiledCelPolicy =
  CompiledValidatingPolicy | CompiledImageValidatingPolicy | CompiledMutatingPolicy | CompiledGeneratingPolicy;

/** One stored CEL policy (of any family, cluster-wide or namespaced), compiled or with why not. */
export interface CelPolicyEntry {
  /** `<Kind>/name` or, for the namespaced kinds, `<Kind>/namespace/name`. */
  readonly key: string;
  readonly kind: CelPolicyKind;
  readonly name: string;
  readonly namespace?: string;
  /** The latest object the informer delivered (its status included). */
  readonly object: KubeObject;
  /** Set when it compiles: the policy is served (the compiled form of its kind's family). */
  readonly compiled?: CompiledCelPolicy;
  /** Why it does not compile (field and message), empty when it does. */
  readonly errors: readonly PolicyFieldError[];
  /** The version it was compiled for (generation, else resourceVersion). */
  readonly version: string;
}

/** One stored CEL PolicyException. */
export interface CelExceptionEntry {
  /** `namespace/name`. */
  readonly key: string;
  readonly object: KubeObject;
  readonly compiled?: CompiledCelPolicyException;
  readonly errors: readonly PolicyFieldError[];
  readonly version: string;
}

export interface CelPolicyStoreOptions {
  readonly compilers?: CelPolicyCompilers;
  /** The time, for expiresAt (default Date.now). */
  readonly now?: () => number;
}

export class CelPolicyStore {
  private readonly policyEntries = new Map<string, CelPolicyEntry>();
  private readonly exceptionEntries = new Map<string, CelExceptionEntry>();
  private readonly compilers: CelPolicyCompilers;
  private readonly now: () => number;
  /** The compiled policies of each family, worked out again after a change. */
  private served = new Map<(kind: string) => boolean, readonly CompiledCelPolicy[]>();

  constructor(options: CelPolicyStoreOptions = {}) {
    this.compilers = options.compilers ?? CEL_POLICY_COMPILERS;
    this.now = options.now ?? Date.now;
  }

  /** Stores a policy (compiling it unless this version is compiled already); returns its entry. */
  upsertPolicy(object: KubeObject, kind: CelPolicyEntry['kind'] = kindOf(object)): CelPolicyEntry {
    const typed = object.kind ? object : { ...object, kind };
    const name = typed.metadata?.name ?? '';
    const namespace = isNamespacedCelPolicyKind(kind) ? (typed.metadata?.namespace ?? '') : undefined;
    const key = policyKeyOf(kind, name, namespace);
    const version = versionOf(typed);
    const previous = this.policyEntries.get(key);
    const sameVersion = previous && previous.version === version && uidOf(previous.object) === uidOf(typed);
    const entry: CelPolicyEntry = sameVersion
      ? { ...previous, object: typed }
      : {
          key,
          kind,
          name,
          ...(namespace !== undefined ? { namespace } : {}),
          object: typed,
          version,
          ...this.compilePolicy(typed, kind),
        };
    this.policyEntries.set(key, entry);
    if (!sameVersion) this.forgetServed();
    return entry;
  }

  removePolicy(object: KubeObject, kind: CelPolicyEntry['kind'] = kindOf(object)): void {
    const namespace = isNamespacedCelPolicyKind(kind) ? (object.metadata?.namespace ?? '') : undefined;
    if (this.policyEntries.delete(policyKeyOf(kind, object.metadata?.name ?? '', namespace))) this.forgetServed();
  }

  upsertException(object: KubeObject): CelExceptionEntry {
    const typed = object.kind ? object : { ...object, kind: 'PolicyException' };
    const key = `${typed.metadata?.namespace ?? ''}/${typed.metadata?.name ?? ''}`;
    const version = versionOf(typed);
    const previous = this.exceptionEntries.get(key);
    if (previous && previous.version === version && uidOf(previous.object) === uidOf(typed)) {
      const kept = { ...previous, object: typed };
      this.exceptionEntries.set(key, kept);
      return kept;
    }
    const entry: CelExceptionEntry = { key, object: typed, version, ...this.compileException(typed) };
    this.exceptionEntries.set(key, entry);
    return entry;
  }

  removeException(object: KubeObject): void {
    this.exceptionEntries.delete(`${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}`);
  }

  /** The compiled (Ready) ValidatingPolicies and NamespacedValidatingPolicies, by key. */
  validatingPolicies(): readonly CompiledValidatingPolicy[] {
    return this.compiledOf(isValidatingPolicyKind) as readonly CompiledValidatingPolicy[];
  }

  /** The compiled (Ready) ImageValidatingPolicies and NamespacedImageValidatingPolicies, by key. */
  imageValidatingPolicies(): readonly CompiledImageValidatingPolicy[] {
    return this.compiledOf(isImagePolicyKind) as readonly CompiledImageValidatingPolicy[];
  }

  /** The compiled MutatingPolicies and NamespacedMutatingPolicies, by key. */
  mutatingPolicies(): readonly CompiledMutatingPolicy[] {
    return this.compiledOf(isMutatingPolicyKind) as readonly CompiledMutatingPolicy[];
  }

  /** The compiled GeneratingPolicies and NamespacedGeneratingPolicies, by key. */
  generatingPolicies(): readonly CompiledGeneratingPolicy[] {
    return this.compiledOf(isGeneratingPolicyKind) as readonly CompiledGeneratingPolicy[];
  }

  private compiledOf(family: (kind: string) => boolean): readonly CompiledCelPolicy[] {
    let compiled = this.served.get(family);
    if (!compiled) {
      compiled = this.policies()
        .filter((entry) => family(entry.kind))
        .map((entry) => entry.compiled)
        .filter((policy): policy is CompiledCelPolicy => policy !== undefined);
      this.served.set(family, compiled);
    }
    return compiled;
  }

  /** Every stored policy, compiled or not, by key. */
  policies(): CelPolicyEntry[] {
    return [...this.policyEntries.values()].sort((a, b) => compare(a.key, b.key));
  }

  /**
   * The compiled exceptions in force: from a namespace matching `namespaces` (wildcards; none when
   * empty, exceptions being off), and not expired.
   */
  policyExceptions(namespaces: readonly string[]): CompiledCelPolicyException[] {
    if (namespaces.length === 0) return [];
    const now = this.now();
    return this.exceptions()
      .map((entry) => entry.compiled)
      .filter(
        (compiled): compiled is CompiledCelPolicyException =>
          compiled !== undefined &&
          namespaces.some((pattern) => wildcardMatch(pattern, compiled.namespace)) &&
          (compiled.expiresAt === undefined || compiled.expiresAt > now),
      );
  }

  /** Every stored exception, by key. */
  exceptions(): CelExceptionEntry[] {
    return [...this.exceptionEntries.values()].sort((a, b) => compare(a.key, b.key));
  }

  private forgetServed(): void {
    this.served.clear();
  }

  private compilePolicy(object: KubeObject, kind: CelPolicyKind): Pick<CelPolicyEntry, 'compiled' | 'errors'> {
    const compile = this.compilerFor(kind);
    // Fail closed: a policy this build cannot compile is not served (Ready false, named).
    if (!compile) return { errors: [{ field: 'spec', message: `${kind} is not supported yet` }] };
    try {
      return { compiled: compile(object), errors: [] };
    } catch (error) {
      return { errors: fieldErrorsOf(error) };
    }
  }

  private compilerFor(kind: CelPolicyKind): ((object: KubeObject) => CompiledCelPolicy) | undefined {
    if (isImagePolicyKind(kind)) return this.compilers.imagePolicy;
    if (isMutatingPolicyKind(kind)) return this.compilers.mutatingPolicy;
    if (isGeneratingPolicyKind(kind)) return this.compilers.generatingPolicy;
    return this.compilers.policy;
  }

  private compileException(object: KubeObject): Pick<CelExceptionEntry, 'compiled' | 'errors'> {
    try {
      return { compiled: this.compilers.exception(object), errors: [] };
    } catch (error) {
      return { errors: fieldErrorsOf(error) };
    }
  }
}

/** The field errors of a compiler failure; any other failure is one error on the whole spec. */
export function fieldErrorsOf(error: unknown): PolicyFieldError[] {
  if (error instanceof ValidatingPolicyError && error.errors.length > 0) return [...error.errors];
  const errors = (error as { errors?: unknown }).errors;
  if (Array.isArray(errors) && errors.every((e) => typeof e?.field === 'string' && typeof e?.message === 'string')) {
    return errors as PolicyFieldError[];
  }
  return [{ field: 'spec', message: errorMessage(error) }];
}

export function policyKeyOf(kind: CelPolicyKind, name: string, namespace?: string): string {
  return isNamespacedCelPolicyKind(kind) ? `${kind}/${namespace ?? ''}/${name}` : `${kind}/${name}`;
}

function kindOf(object: KubeObject): CelPolicyKind {
  return CEL_POLICY_KINDS.find((kind) => kind === object.kind) ?? 'ValidatingPolicy';
}

/** What a compiled form is kept for: the spec's generation when the server tracks it, else the resourceVersion. */
function versionOf(object: KubeObject): string {
  const generation = object.metadata?.['generation'];
  if (typeof generation === 'number') return `g${generation}`;
  return `rv${object.metadata?.resourceVersion ?? ''}`;
}

function uidOf(object: KubeObject): string | undefined {
  return object.metadata?.uid;
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
