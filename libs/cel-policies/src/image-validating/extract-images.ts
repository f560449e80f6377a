import { compileCel, type CelProgram } from '@edict/cel';

/**
 * Kyverno's built-in image extractors, chosen by the requested resource: `containers`,
 * `initContainers` and `ephemeralContainers` of a Pod, of a pod controller's template, or of a
 * CronJob's job template (absent lists give []). A policy's `images` entry of the same name
 * replaces the built-in one.
 */
export function defaultExtractors(resource: { group: string; version: string; resource: string }) {
  const prefix = prefixFor(resource);
  if (prefix === undefined) return new Map<string, CelProgram>();
  let compiled = byPrefix.get(prefix);
  if (!compiled) {
    compiled = new Map(
      GROUPS.map((group) => {
        const field = `object.${prefix}${group}`;
        return [group, compileCel(`has(${field}) ? ${field}.map(e, e.image) : []`, VARIABLES, 'any')] as const;
      }),
    );
    byPrefix.set(prefix, compiled);
  }
  return compiled;
}

const GROUPS = ['containers', 'initContainers', 'ephemeralContainers'];
const VARIABLES = { params: false, authorizer: false } as const;
const byPrefix = new Map<string, Map<string, CelProgram>>();
const CONTROLLERS = new Set([
  'apps/deployments',
  'apps/statefulsets',
  'apps/daemonsets',
  'apps/replicasets',
  'batch/jobs',
]);

function prefixFor(resource: { group: string; version: string; resource: string }): string | undefined {
  if (resource.version !== 'v1') return undefined;
  if (resource.group === '' && resource.resource === 'pods') return 'spec.';
  if (CONTROLLERS.has(`${resource.group}/${resource.resource}`)) return 'spec.template.spec.';
  if (resource.group === 'batch' && resource.resource === 'cronjobs') return 'spec.jobTemplate.spec.template.spec.';
  return undefined;
}
