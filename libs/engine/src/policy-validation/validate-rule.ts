import type { ForEachValidation, Rule } from '../policy';
import type { RuleCheck } from './check-context';
import type { Path } from './findings';
import { checkPatternAnchors, labelsAndAnnotationsAreStrings, validateAnchorSupported } from './patterns';

const VALIDATION_KINDS = [
  'pattern',
  'anyPattern',
  'deny',
  'foreach',
  'podSecurity',
  'cel',
  'manifests',
  'assert',
] as const;
const FOREACH_KINDS = ['pattern', 'anyPattern', 'deny', 'foreach'] as const;

/** Kyverno's validate-rule checker: one validation kind, well-formed patterns and foreach entries. */
export function checkValidateRule(c: RuleCheck): void {
  const validate = c.rule.validate;
  if (!validate) return;
  const at: Path = [...c.path, 'validate'];
  const record = validate as unknown as Record<string, unknown>;
  const used = VALIDATION_KINDS.filter((k) => record[k] !== undefined && record[k] !== null);
  if (used.length === 0) c.findings.error(at, `one of ${VALIDATION_KINDS.join(', ')} must be specified`);
  if (used.length > 1) c.findings.error(at, `only one of ${VALIDATION_KINDS.join(', ')} can be specified`);
  if (validate.pattern !== undefined)
    checkPatternAnchors(validate.pattern, [...at, 'pattern'], c.findings, validateAnchorSupported);
  (validate.anyPattern ?? []).forEach((pattern, i) =>
    checkPatternAnchors(pattern, [...at, 'anyPattern', i], c.findings, validateAnchorSupported),
  );
  checkForeach(validate.foreach, [...at, 'foreach'], c);
  if (!labelsAreStrings(c.rule)) {
    c.findings.error(
      at,
      'labels and annotations supports only string values, "use double quotes around the non string values"',
    );
  }
}

function checkForeach(list: readonly ForEachValidation[] | undefined, path: Path, c: RuleCheck): void {
  (list ?? []).forEach((fe, i) => {
    const at = [...path, i];
    const record = fe as unknown as Record<string, unknown>;
    const used = FOREACH_KINDS.filter((k) => record[k] !== undefined && record[k] !== null);
    if (used.length === 0) c.findings.error(at, 'one of pattern, anyPattern, deny, or foreach must be specified');
    if (used.length > 1) c.findings.error(at, 'only one of pattern, anyPattern, deny, or foreach can be specified');
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
