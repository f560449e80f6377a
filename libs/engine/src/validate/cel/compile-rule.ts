import { CelCompileError, compileCel, type CelProgram, type CelVariables } from '@edict/cel';
import type { Rule } from '../../policy/types';

export interface NamedProgram {
  readonly name: string;
  readonly program: CelProgram;
}

export interface CompiledValidation {
  readonly program: CelProgram;
  /** The expression's message, else the rule's `validate.message`. */
  readonly message: string;
  readonly messageProgram?: CelProgram;
}

/** A validate.cel rule's expressions, compiled. */
export interface CompiledCelRule {
  readonly preconditions: readonly NamedProgram[];
  readonly variables: readonly NamedProgram[];
  readonly validations: readonly CompiledValidation[];
}

/** An expression of the rule that does not compile, with where it sits in the rule. */
export interface CelRuleProblem {
  readonly path: readonly (string | number)[];
  readonly message: string;
}

/** The CEL expressions of a rule that do not compile (policy validation reports them all). */
export function celRuleProblems(rule: Rule): CelRuleProblem[] {
  const problems: CelRuleProblem[] = [];
  compileRule(rule, (path, error) => problems.push({ path, message: error.message }));
  return problems;
}

/** Compiles a validate.cel rule; throws on the first expression that does not compile, naming it. */
export function compileCelRule(rule: Rule): CompiledCelRule {
  return compileRule(rule, (path, error) => {
    throw new CelCompileError(`${path.join('.').replace(/\.(\d+)/g, '[$1]')}: ${error.message}`);
  });
}

type OnError = (path: (string | number)[], error: Error) => void;

function compileRule(rule: Rule, onError: OnError): CompiledCelRule {
  const cel = rule.validate?.cel ?? {};
  // Kubernetes declares `params` when the policy has a paramKind and `authorizer` everywhere but
  // in message expressions.
  const variables: CelVariables = { params: Boolean(cel.paramKind && cel.paramRef), authorizer: true };
  const forMessages: CelVariables = { ...variables, authorizer: false };
  const compile = (
    source: string | undefined,
    vars: CelVariables,
    type: 'bool' | 'string' | 'any',
    path: (string | number)[],
  ): CelProgram | undefined => {
    try {
      return compileCel(source ?? '', vars, type);
    } catch (error) {
      onError(path, error as Error);
      return undefined;
    }
  };
  const named = (list: { name: string; expression: string }[] | undefined, at: string[], type: 'bool' | 'any') =>
    (list ?? []).flatMap((item, i) => {
      const program = compile(item.expression, variables, type, [...at, i, 'expression']);
      return program ? [{ name: item.name, program }] : [];
    });
  const preconditions = named(rule.celPreconditions, ['celPreconditions'], 'bool');
  const celVariables = named(cel.variables, ['validate', 'cel', 'variables'], 'any');
  const validations = (cel.expressions ?? []).flatMap((item, i): CompiledValidation[] => {
    const at = ['validate', 'cel', 'expressions', i];
    const program = compile(item.expression, variables, 'bool', [...at, 'expression']);
    const messageProgram = item.messageExpression
      ? compile(item.messageExpression, forMessages, 'string', [...at, 'messageExpression'])
      : undefined;
    if (!program) return [];
    return [{ program, message: item.message || rule.validate?.message || '', messageProgram }];
  });
  return { preconditions, variables: celVariables, validations };
}
