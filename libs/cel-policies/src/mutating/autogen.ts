import type { AutogenTarget } from '../api/types';
import { canAutogen, compareTargets, controllerConstraints } from '../autogen/autogen';
import { POD_CONTROLLERS, type AutogenFamily } from '../autogen/pod-controllers';
import type { MutatingAutogenConfig, MutatingPolicySpec } from './types';

/** Where a family's pod template is: the spec and metadata replacements, and the Object{} wrapper. */
const FAMILY_TEMPLATE: Record<AutogenFamily, { spec: string; metadata: string; open: string; close: string }> = {
  defaults: {
    spec: 'spec.template.spec',
    metadata: 'spec.template.metadata',
    open: 'Object{spec: Object.spec{template: Object.spec.template{',
    close: '}}}',
  },
  cronjobs: {
    spec: 'spec.jobTemplate.spec.template.spec',
    metadata: 'spec.jobTemplate.spec.template.metadata',
    open: 'Object{spec: Object.spec{jobTemplate: Object.spec.jobTemplate{spec: Object.spec.jobTemplate.spec{template: Object.spec.jobTemplate.spec.template{',
    close: '}}}}}',
  },
};

/**
 * Kyverno's autogen for a MutatingPolicy on Pods: one config per controller family (`cronjobs`,
 * `defaults`, sorted), each a copy of the spec matching the family's controllers, its match
 * conditions and ApplyConfiguration expressions rewritten to reach the pod template (an
 * `Object{...}` is wrapped in the template's path). JSONPatch expressions and variables are left
 * as written, as Kyverno leaves them.
 */
export function mutatingAutogenConfigs(spec: MutatingPolicySpec): MutatingAutogenConfig[] {
  if (!canAutogen(spec.matchConstraints)) return [];
  const chosen = spec.autogen?.podControllers?.controllers ?? Object.keys(POD_CONTROLLERS);
  const families = new Map<AutogenFamily, AutogenTarget[]>();
  for (const name of new Set(chosen)) {
    const controller = POD_CONTROLLERS[name];
    if (!controller) continue;
    families.set(controller.family, [...(families.get(controller.family) ?? []), controller.target]);
  }
  const operations = spec.matchConstraints?.resourceRules?.[0]?.operations ?? [];
  return [...families.keys()].sort().map((family) => {
    const targets = [...(families.get(family) ?? [])].sort(compareTargets);
    const copy = JSON.parse(JSON.stringify(spec)) as MutatingPolicySpec;
    const matchConstraints = controllerConstraints(spec.matchConstraints, targets, operations);
    if (matchConstraints) copy.matchConstraints = matchConstraints;
    else delete copy.matchConstraints;
    for (const condition of copy.matchConditions ?? []) {
      if (typeof condition?.expression === 'string' && condition.expression !== '')
        condition.expression = podToTemplate(condition.expression, family);
    }
    for (const mutation of copy.mutations ?? []) {
      const expression = mutation?.applyConfiguration?.expression;
      if (typeof expression === 'string' && expression !== '' && mutation.applyConfiguration)
        mutation.applyConfiguration.expression = podToTemplate(expression, family);
    }
    return { name: family, targets, spec: copy };
  });
}

/** Rewrites a Pod expression for a controller family's template (Kyverno's convertPodToTemplateExpression). */
export function podToTemplate(expression: string, family: AutogenFamily): string {
  const template = FAMILY_TEMPLATE[family];
  let out = expression;
  for (const root of ['object', 'Object']) {
    out = out.split(`${root}.spec`).join(`${root}.${template.spec}`);
    out = out.split(`${root}.metadata.labels`).join(`${root}.${template.metadata}.labels`);
    out = out.split(`${root}.metadata.annotations`).join(`${root}.${template.metadata}.annotations`);
  }
  const trimmed = out.trim();
  if (!trimmed.startsWith('Object{')) return out;
  const content = trimmed.slice('Object{'.length);
  let depth = 1;
  for (let i = 0; i < content.length; i++) {
    const char = content[i];
    if (char === '{') depth++;
    else if (char === '}' && --depth === 0) {
      if (i === 0) return out;
      return template.open + content.slice(0, i) + template.close + content.slice(i + 1);
    }
  }
  return out;
}
