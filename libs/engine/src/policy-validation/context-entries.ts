import { compileJmesPath } from '@edict/jmespath';
import type { ContextEntry } from '../policy';
import type { RuleCheck } from './check-context';
import { errorMessage } from '@edict/foundation';

/** Names Kyverno puts in every context; an entry may not shadow them (or a path below them). */
export const RESERVED_CONTEXT_NAMES = [
  'images',
  'request',
  'serviceAccountName',
  'serviceAccountNamespace',
  'element',
  'elementIndex',
];
const SOURCES = ['configMap', 'apiCall', 'globalReference', 'imageRegistry', 'variable'] as const;
const BINDING_IDENTIFIER = /^\w+$/;
const ANY_VARIABLE = /\{\{[^{}]*\}\}/;

/** Kyverno's validateRuleContext, plus a warning for entries that redefine an earlier one. */
export function checkRuleContext(c: RuleCheck): void {
  const entries = c.rule.context ?? [];
  const seen = new Set<string>();
  const usesAssert = c.rule.validate?.['assert' as keyof typeof c.rule.validate] !== undefined;
  entries.forEach((entry, i) => {
    const at = [...c.path, 'context', i];
    const fail = (message: string, field?: string) =>
      c.findings.error(field ? [...at, ...field.split('.')] : at, message);
    if (!entry || typeof entry.name !== 'string' || entry.name === '')
      return fail('a name is required for context entries', 'name');
    const name = entry.name;
    if (usesAssert && !BINDING_IDENTIFIER.test(name)) {
      fail(
        `context entry name ${name} is invalid, it must be a single word when the validation rule uses \`assert\``,
        'name',
      );
    }
    const reserved = RESERVED_CONTEXT_NAMES.find((r) => name === r || name.startsWith(`${r}.`));
    if (reserved) fail(`entry name ${name} is invalid as it conflicts with a pre-defined variable ${reserved}`, 'name');
    if (seen.has(name)) {
      c.findings.warning(
        [...at, 'name'],
        `context entry ${name} is defined more than once: the later entry replaces the earlier value`,
      );
    }
    seen.add(name);
    const used = SOURCES.filter((s) => entry[s] !== undefined && entry[s] !== null);
    if (used.length !== 1)
      return fail('exactly one of configMap or apiCall or imageRegistry or variable is required for context entries');
    const problem = sourceProblem(entry, used[0]!);
    if (problem) fail(problem.message, problem.field);
  });
}

function sourceProblem(
  entry: ContextEntry,
  source: (typeof SOURCES)[number],
): { message: string; field: string } | undefined {
  switch (source) {
    case 'configMap':
      if (!entry.configMap!.name)
        return { message: 'a name is required for configMap context entry', field: 'configMap' };
      if (!entry.configMap!.namespace)
        return { message: 'a namespace is required for configMap context entry', field: 'configMap' };
      return undefined;
    case 'apiCall':
      if (entry.apiCall!.urlPath && entry.apiCall!.service)
        return { message: 'a URLPath cannot be used for service API calls', field: 'apiCall' };
      return jmesPathProblem(entry.apiCall!.jmesPath, 'apiCall');
    case 'globalReference':
      return jmesPathProblem(entry.globalReference!.jmesPath, 'globalReference');
    case 'imageRegistry':
      if (!entry.imageRegistry!.reference)
        return { message: 'a ref is required for imageRegistry context entry', field: 'imageRegistry' };
      return jmesPathProblem(entry.imageRegistry!.jmesPath, 'imageRegistry');
    case 'variable': {
      const variable = entry.variable!;
      const problem = jmesPathProblem(variable.jmesPath, 'variable');
      if (problem) return problem;
      const hasValue = variable.value !== undefined && variable.value !== null;
      const hasPath = typeof variable.jmesPath === 'string' && variable.jmesPath !== '';
      if (!hasValue && !hasPath)
        return { message: 'a variable must define a value or a jmesPath expression', field: 'variable' };
      if (variable.default !== undefined && variable.default !== null && !hasPath) {
        return {
          message: 'a variable must define a default value only when a jmesPath expression is defined',
          field: 'variable',
        };
      }
      return undefined;
    }
  }
}

/** A jmesPath that holds variables cannot be checked before substitution (Kyverno skips it too). */
function jmesPathProblem(
  expression: string | undefined,
  source: string,
): { message: string; field: string } | undefined {
  if (typeof expression !== 'string' || expression === '' || ANY_VARIABLE.test(expression)) return undefined;
  try {
    compileJmesPath(expression);
    return undefined;
  } catch (error) {
    const detail = errorMessage(error);
    return { message: `failed to parse JMESPath ${expression}: ${detail}`, field: `${source}.jmesPath` };
  }
}
