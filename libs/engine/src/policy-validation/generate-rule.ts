import { isObject, type JsonValue, formatPath, hasWildcard } from '@edict/foundation';
import { type Generation } from '../policy';
import type { RuleCheck } from './check-context';
import type { Path } from './findings';
import { containsVariable } from './json-walk';
import { isClusterScoped, isClusterScopedTarget } from './kinds';
import { checkPatternAnchors } from './patterns';

type GeneratePattern = Omit<Generation, 'foreach'>;

/** Kyverno's Generation.Validate and the generate-rule checker. */
export function checkGenerateRule(c: RuleCheck): void {
  const generate = c.rule.generate;
  if (!generate) return;
  const at: Path = [...c.path, 'generate'];
  if (c.rule.celPreconditions) {
    c.findings.error([...c.path, 'celPreconditions'], 'celPrecondition can only be used with validate.cel');
  }
  const sources = [
    generate.data !== undefined && generate.data !== null,
    isObject(generate.clone as JsonValue) && Object.keys(generate.clone!).length > 0,
    generate.cloneList?.kinds !== undefined,
    generate.foreach !== undefined,
  ].filter(Boolean).length;
  if (sources > 1) {
    c.findings.error(at, 'only one of generate patterns(data, clone, cloneList and foreach) can be specified');
    return;
  }
  if (generate.foreach) generate.foreach.forEach((entry, i) => checkPattern(entry, [...at, 'foreach', i], c));
  else checkPattern(generate, at, c);

  const legacyKinds = c.rule.match?.resources?.kinds ?? [];
  if (generate.kind && legacyKinds.includes(generate.kind)) {
    c.findings.error([...at, 'kind'], 'generation kind and match resource kind should not be the same');
  }
}

function checkPattern(g: GeneratePattern, path: Path, c: RuleCheck): void {
  const { findings } = c;
  const kind = g.kind ?? '';
  const namespace = g.namespace ?? '';
  const kindKnown = kind !== '' && !containsVariable(kind);
  const clusterScoped = kindKnown && isClusterScopedTarget(g.apiVersion ?? '', kind, c.clusterKinds);
  if (c.namespaced) {
    const problem = clusterScoped
      ? `the target must be a namespaced resource: ${g.apiVersion ?? ''}/${kind}`
      : namespace !== c.namespace
        ? `a namespaced policy cannot generate resources in other namespaces, expected: ${c.namespace}, received: ${namespace}`
        : g.clone?.name && g.clone.namespace !== c.namespace
          ? `a namespaced policy cannot clone resources from other namespaces, expected: ${c.namespace}, received: ${g.clone.namespace ?? ''}`
          : undefined;
    if (problem) findings.error([...path, 'namespace'], `target resource scope mismatched: ${problem}`);
  }
  if (kindKnown) {
    if (!clusterScoped && namespace === '')
      findings.error([...path, 'namespace'], 'target namespace must be set for a namespaced resource');
    if (clusterScoped && namespace !== '')
      findings.error([...path, 'namespace'], 'target namespace must not be set for a cluster-wide resource');
  }
  const sourceSpec = {
    kind: g.kind ?? null,
    apiVersion: g.apiVersion ?? null,
    clone: g.clone ?? null,
    cloneList: g.cloneList ?? null,
  };
  // Kyverno accepts variables here (the source is resolved per trigger) but warns: a source that
  // changes with the trigger breaks synchronization.
  if (containsVariable(sourceSpec as unknown as JsonValue)) {
    findings.warning(
      [...path, 'clone/cloneList'],
      `variables in ${formatPath(path)}.clone/cloneList would lead to incorrect synchronization behavior`,
    );
  }
  if ((g.cloneList?.kinds?.length ?? 0) === 0) {
    if (!g.kind) findings.error([...path, 'kind'], 'kind can not be empty');
    if (!g.name) findings.error([...path, 'name'], 'name can not be empty');
    if (!g.apiVersion) findings.error([...path, 'apiVersion'], 'apiVersion can not be empty');
  } else {
    checkCloneList(g, path, c);
  }
  if (g.data !== undefined && g.data !== null) {
    checkPatternAnchors(
      g.data,
      [...path, 'data'],
      findings,
      () => false,
      'anchors not supported on generate resources: ',
    );
  }
}

function checkCloneList(g: GeneratePattern, path: Path, c: RuleCheck): void {
  const list = g.cloneList!;
  const kinds = list.kinds!;
  const at = [...path, 'cloneList'];
  const ns = list.namespace ?? '';
  if (c.namespaced) {
    for (const kind of kinds) {
      if (isClusterScoped(kind, c.clusterKinds))
        c.findings.error([...at, 'kinds'], `the source in cloneList must be a namespaced resource: ${kind}`);
      if (ns !== c.namespace) {
        c.findings.error(
          [...at, 'namespace'],
          `a namespaced policy cannot clone resources from other namespace, expected: ${c.namespace}, received: ${ns}`,
        );
      }
    }
  }
  const scopes = kinds.map((k) => isClusterScoped(k, c.clusterKinds));
  if (scopes.some((s) => s !== scopes[0]))
    c.findings.error([...at, 'kinds'], 'mixed scope of target resources is forbidden');
  const clusterScope = scopes.every(Boolean);
  if (!clusterScope && ns === '')
    c.findings.error([...at, 'namespace'], 'namespace is required for namespaced target resources');
  if (clusterScope && !c.namespaced && ns !== '')
    c.findings.error([...at, 'namespace'], 'namespace is forbidden for cluster-wide target resources');
  if (list.selector && selectorStrings(list.selector).some(hasWildcard)) {
    c.findings.error([...at, 'selector'], 'wildcard characters `*/?` not supported');
  }
}

function selectorStrings(selector: NonNullable<Generation['cloneList']>['selector']): string[] {
  const labels = Object.entries(selector?.matchLabels ?? {}).flat();
  const expressions = (selector?.matchExpressions ?? []).flatMap((e) => [e.key, ...(e.values ?? [])]);
  return [...labels, ...expressions].filter((s): s is string => typeof s === 'string');
}
