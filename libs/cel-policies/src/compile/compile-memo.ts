import { BoundedCache, type KubeObject } from '@edict/foundation';
import type { PolicyFieldError } from '../api/types';
import { ValidatingPolicyError } from './policy-error';

/** What a CEL policy kind's compiler builds: the compiled policy and the programs behind it. */
export interface CompileBuild<C, P> {
  compiled?: C;
  programs?: P;
  errors: PolicyFieldError[];
}

/**
 * A CEL policy kind's compile cache: the same object, or the same uid and resourceVersion, is never
 * compiled again (bounded by version), and the programs behind a compiled policy stay off its public
 * shape, found again by `programsOf`.
 */
export class CompileMemo<C extends { readonly name: string }, P> {
  private readonly byObject = new WeakMap<object, C>();
  private readonly byVersion: BoundedCache<C>;
  private readonly programs = new WeakMap<C, P>();

  constructor(
    /** The compile function's name, for the message of a policy it did not compile. */
    private readonly compiler: string,
    private readonly build: (policy: KubeObject) => CompileBuild<C, P>,
    /** The kind's error for a policy that does not compile. */
    private readonly invalid: (name: string, errors: PolicyFieldError[]) => Error = (name, errors) =>
      new ValidatingPolicyError(name, errors),
    capacity = 1_000,
  ) {
    this.byVersion = new BoundedCache<C>(capacity);
  }

  /** Every problem of the policy, [] when valid (policy admission validation). */
  errors(policy: KubeObject): PolicyFieldError[] {
    return this.build(policy).errors;
  }

  /** The compiled policy; throws the kind's error with every problem, each at its field path. */
  compile(policy: KubeObject): C {
    const known = this.byObject.get(policy);
    if (known) return known;
    const key = versionKey(policy);
    const cached = key ? this.byVersion.get(key) : undefined;
    if (cached) {
      this.byObject.set(policy, cached);
      return cached;
    }
    const { compiled, programs, errors } = this.build(policy);
    if (!compiled || !programs || errors.length > 0) {
      throw this.invalid(policy.metadata?.name ?? '', errors);
    }
    this.programs.set(compiled, programs);
    this.byObject.set(policy, compiled);
    if (key) this.byVersion.set(key, compiled);
    return compiled;
  }

  /** The programs behind a policy this memo compiled. */
  programsOf(compiled: C): P {
    const programs = this.programs.get(compiled);
    if (!programs) throw new Error(`policy ${compiled.name} was not compiled by ${this.compiler}`);
    return programs;
  }
}

function versionKey(policy: KubeObject): string | undefined {
  const { uid, resourceVersion, namespace, name } = policy.metadata ?? {};
  if (!uid || !resourceVersion) return undefined;
  return `${policy.apiVersion}/${policy.kind}/${namespace ?? ''}/${name ?? ''}/${uid}/${resourceVersion}`;
}
