import { isObject } from '@edict/foundation';
import { parseCronSchedule } from '@edict/engine';
import type { PolicyFieldError } from '../api/types';
import { specChecks } from '../compile/spec-checks';

const PROPAGATION = ['Foreground', 'Background', 'Orphan'];
const MAX_CONDITIONS = 64;
const CEL_IDENTIFIER = /^[_a-zA-Z][_a-zA-Z0-9]*$/;
const QUALIFIED_NAME =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

/**
 * The structural problems of a DeletingPolicy spec that its CRD schema and Kyverno's admission
 * check refuse, in the API server's words: the schedule (required, and a cron Kyverno can run:
 * refused here rather than a policy that silently never runs), matchConstraints with a resource
 * rule, the propagation policy's enum, at most 64 conditions with unique qualified names, and
 * variables named as CEL identifiers.
 */
export function deletingSchemaErrors(spec: unknown): PolicyFieldError[] {
  const errors: PolicyFieldError[] = [];
  const { push, list } = specChecks(errors);
  if (!isObject(spec)) {
    push('spec', 'Required value');
    return errors;
  }

  const schedule = spec.schedule;
  if (schedule === undefined || schedule === null || schedule === '') push('spec.schedule', 'Required value');
  else if (typeof schedule !== 'string')
    push('spec.schedule', `Invalid value: ${JSON.stringify(schedule)}: must be a string`);
  else {
    try {
      parseCronSchedule(schedule);
    } catch (error) {
      push('spec.schedule', `Invalid value: ${JSON.stringify(schedule)}: ${(error as Error).message}`);
    }
  }

  const constraints = spec.matchConstraints;
  if (!isObject(constraints) || list('spec.matchConstraints.resourceRules', constraints.resourceRules).length === 0) {
    push('spec.matchConstraints', 'Required value: a matchConstraints with at least one resource rule is required');
  }

  const propagation = spec.deletionPropagationPolicy;
  if (propagation !== undefined && (typeof propagation !== 'string' || !PROPAGATION.includes(propagation))) {
    push(
      'spec.deletionPropagationPolicy',
      `Unsupported value: ${JSON.stringify(propagation)}: supported values: ${PROPAGATION.map((p) => `"${p}"`).join(', ')}`,
    );
  }

  const conditions = list('spec.conditions', spec.conditions);
  if (conditions.length > MAX_CONDITIONS) {
    push('spec.conditions', `Too many: ${conditions.length}: must have at most ${MAX_CONDITIONS} items`);
  }
  namedItems('spec.conditions', conditions, (name) => QUALIFIED_NAME.test(name) && name.length <= 63, push);
  namedItems('spec.variables', list('spec.variables', spec.variables), (name) => CEL_IDENTIFIER.test(name), push);
  return errors;
}

function namedItems(
  path: string,
  items: unknown[],
  validName: (name: string) => boolean,
  push: (field: string, message: string) => void,
): void {
  const names = new Set<string>();
  items.forEach((item, i) => {
    if (!isObject(item)) return push(`${path}[${i}]`, 'Invalid value: must be an object');
    const name = item.name;
    if (typeof name !== 'string' || name === '') return push(`${path}[${i}].name`, 'Required value');
    if (!validName(name)) push(`${path}[${i}].name`, `Invalid value: ${JSON.stringify(name)}: not a valid name`);
    else if (names.has(name)) push(`${path}[${i}].name`, `Duplicate value: ${JSON.stringify(name)}`);
    names.add(name);
  });
}
