import type { CelValidation, ForEachValidation, Rule } from '../policy';
import type { RuleCheck } from './check-context';
import type { Path } from './findings';
import { checkPatternAnchors, labelsAndAnnotationsAreStrings, validateAnchorSupported } from './patterns';

const FOREACH_KINDS = ['pattern', 'anyPattern', 'deny', 'foreach'] as const;
/** Kyverno's message names five of the kinds it counts (podSecurity, manifests and assert count too). */
const VALIDATION_KINDS_NAMED = 'pattern, anyPattern, deny, foreach, cel';

/** Kyverno's validate-rule checker: one validation kind, well-formed patterns and foreach entries. */
export function checkValidateRule(c: RuleCheck): void {
  const validate = c.rule.validate;
  if (!validate) return;
  const at: Path = [...c.path, 'validate'];
  const used = validationKindCount(validate);
  if (used === 0) c.findings.error(at, `one of ${VALIDATION_KINDS_NAMED} must be specified`);
  if (used > 1) c.findings.error(at, `only one of ${VALIDATION_KINDS_NAMED} can be specified`);
  if (validate.pattern !== undefined)
    checkPatternAnchors(validate.pattern, [...at, 'pattern'], c.findings, validateAnchorSupported);
  (validate.anyPattern ?? []).forEach((pattern, i) =>
    checkPatternAnchors(pattern, [...at, 'anyPattern', i], c.findings, validateAnchorSupported),
  );
  checkForeach(validate.foreach, [...at, 'foreach'], c);
  if (c.rule.celPreconditions && !validate.cel) {
    c.findings.error([...c.path, 'celPreconditions'], 'celPrecondition can only be used with validate.cel');
  }
  if (validate.cel) checkCel(validate.cel, [...at, 'cel'], c);
  if (!labelsAreStrings(c.rule)) {
    c.findings.error(
      at,
      'labels and annotations supports only string values, "use double quotes around the non string values"',
    );
  }
}

/**
 * How many validation kinds a validate block sets, counted as Kyverno does: manifests only with
 * attestors.
 */
function validationKindCount(validate: NonNullable<Rule['validate']>): number {
  const record = validate as unknown as Record<string, unknown>;
  const set = (key: string) => record[key] !== undefined && record[key] !== null;
  const manifests = record.manifests as { attestors?: unknown[] } | null | undefined;
  return (
    ['pattern', 'anyPattern', 'deny', 'foreach', 'podSecurity', 'cel', 'assert'].filter(set).length +
    ((manifests?.attestors?.length ?? 0) > 0 ? 1 : 0)
  );
}

/** Kyverno's checks of a validate.cel block: required expressions, and paramKind with paramRef. */
function checkCel(cel: CelValidation, at: Path, c: RuleCheck): void {
  (cel.expressions ?? []).forEach((expression, i) => {
    if (!expression.expression) c.findings.error([...at, 'expressions', i], 'cel.expressions.expression is required');
  });
  const { paramKind, paramRef } = cel;
  if (paramKind) {
    if (!paramKind.apiVersion) c.findings.error([...at, 'paramKind'], 'cel.paramKind.apiVersion is required');
    if (!paramKind.kind) c.findings.error([...at, 'paramKind'], 'cel.paramKind.kind is required');
    if (!paramRef) c.findings.error(at, 'cel.paramRef is required');
  }
  if (paramRef) {
    if (Boolean(paramRef.name) === Boolean(paramRef.selector)) {
      c.findings.error([...at, 'paramRef'], 'one of cel.paramRef.name or cel.paramRef.selector must be set');
    }
    if (!paramRef.parameterNotFoundAction) {
      c.findings.error([...at, 'paramRef'], 'cel.paramRef.parameterNotFoundAction is required');
    }
    if (!paramKind) c.findings.error(at, 'cel.paramKind is required');
  }
  (cel.auditAnnotations ?? []).forEach((annotation, i) => {
    if (!annotation.key) c.findings.error([...at, 'auditAnnotations', i], 'cel.auditAnnotation.key is required');
    if (!annotation.valueExpression) {
      c.findings.error([...at, 'auditAnnotations', i], 'cel.auditAnnotation.valueExpression is required');
    }
  });
}

function checkForeach(list: readonly ForEachValidation[] | undefined, path: Path, c: RuleCheck): void {
  (list ?? []).forEach((fe, i) => {
    const at = [...path, i];
    const record = fe as unknown as Record<string, unknown>;
    if (!fe.list) c.findings.error([...at, 'list'], 'foreach.list is required');
    const used = FOREACH_KINDS.filter(
      (k) => record[k] !== undefined && record[k] !== null && !(k === 'foreach' && (fe.foreach?.length ?? 0) === 0),
    );
    if (used.length === 0)
      c.findings.error(at, 'one of pattern, anyPattern, deny, or a nested foreach must be specified');
    if (used.length > 1)
      c.findings.error(at, 'only one of pattern, anyPattern, deny, or a nested foreach can be specified');
    checkForeach(fe.foreach, [...at, 'foreach'], c);
  });
}

/** Kyverno looks at the first foreach pattern, or else the pattern / every anyPattern. */
function labelsAreStrings(rule: Rule): boolean {
  const validate = rule.validate!;
  if (validate.foreach) {
    const first = validate.foreach.find(
      (fe) =>
        fe.pattern !== undefined && fe.pattern !== null && typeof fe.pattern === 'object' && !Array.isArray(fe.pattern),
    );
    return first ? labelsAndAnnotationsAreStrings(first.pattern) : true;
  }
  if (
    validate.pattern !== undefined &&
    validate.pattern !== null &&
    typeof validate.pattern === 'object' &&
    !Array.isArray(validate.pattern)
  ) {
    return labelsAndAnnotationsAreStrings(validate.pattern);
  }
  return (validate.anyPattern ?? []).every((p) => labelsAndAnnotationsAreStrings(p));
}
