import type { CelProgram } from '@edict/cel';
import type { AutogenConfig, MatchResources } from '../api/types';

export interface NamedProgram {
  readonly name: string;
  readonly program: CelProgram;
  /** The `variables.<name>` the expression reads (evaluated before it, in order). */
  readonly reads: readonly string[];
}

export interface CompiledValidation {
  readonly index: number;
  readonly program: CelProgram;
  readonly reads: readonly string[];
  readonly message: string;
  readonly messageProgram?: CelProgram;
  readonly messageReads: readonly string[];
  readonly reason?: string;
}

export interface CompiledAuditAnnotation {
  readonly key: string;
  readonly program: CelProgram;
  readonly reads: readonly string[];
}

/** One spec's expressions compiled: the policy's own, or one autogen config's. */
export interface CompiledSpec {
  readonly matchConstraints?: MatchResources;
  readonly matchConditions: readonly NamedProgram[];
  readonly variables: readonly NamedProgram[];
  /** The variables by name (SpecRun's lookups). */
  readonly variableIndex: ReadonlyMap<string, NamedProgram>;
  readonly validations: readonly CompiledValidation[];
  readonly auditAnnotations: readonly CompiledAuditAnnotation[];
  /** Whether any expression reads `request` / `authorizer`: they are built only then (hot path). */
  readonly readsRequest: boolean;
  readonly readsAuthorizer: boolean;
  /** Whether any expression reads a Kyverno library variable (`http`, `resource`, `globalContext`, `image`). */
  readonly readsLibraries: boolean;
}

/** What the evaluator runs; kept off the public CompiledValidatingPolicy. */
export interface PolicyPrograms {
  readonly own: CompiledSpec;
  readonly autogen: readonly { readonly config: AutogenConfig; readonly spec: CompiledSpec }[];
}
