import { forbidden, type FieldError } from '../field-error';
import { joinQuote, pluralize, sortedSet } from '../go-text';
import type { PodModel, SeLinuxOptionsModel } from '../model';
import { type CheckDefinition, type CheckFailure, visitContainers } from './types';

const ALLOWED_TYPES_V1_0 = new Set(['', 'container_t', 'container_init_t', 'container_kvm_t']);
const ALLOWED_TYPES_V1_31 = new Set([...ALLOWED_TYPES_V1_0, 'container_engine_t']);

/** SELinux type limited to the container types; user and role must not be set. */
function seLinuxOptions(pod: PodModel, allowedTypes: ReadonlySet<string>): CheckFailure | undefined {
  const badTypes: string[] = [];
  let setUser = false;
  let setRole = false;
  // Returns the field errors for one seLinuxOptions block (empty when valid).
  const inspect = (options: SeLinuxOptionsModel, prefix: string): FieldError[] => {
    const errors: FieldError[] = [];
    if (!allowedTypes.has(options.type)) {
      badTypes.push(options.type);
      errors.push(forbidden(`${prefix}.seLinuxOptions.type`, options.type));
    }
    if (options.user !== '') {
      setUser = true;
      errors.push(forbidden(`${prefix}.seLinuxOptions.user`, options.user));
    }
    if (options.role !== '') {
      setRole = true;
      errors.push(forbidden(`${prefix}.seLinuxOptions.role`, options.role));
    }
    return errors;
  };

  const setters: string[] = [];
  const errors: FieldError[] = [];
  const podOptions = pod.securityContext?.seLinuxOptions;
  if (podOptions) {
    const podErrors = inspect(podOptions, 'spec.securityContext');
    if (podErrors.length > 0) {
      setters.push('pod');
      errors.push(...podErrors);
    }
  }
  const badContainers: string[] = [];
  for (const { container, path } of visitContainers(pod)) {
    const options = container.securityContext?.seLinuxOptions;
    if (!options) continue;
    const containerErrors = inspect(options, `${path}.securityContext`);
    if (containerErrors.length > 0) {
      badContainers.push(container.name);
      errors.push(...containerErrors);
    }
  }
  if (badContainers.length > 0) {
    setters.push(`${pluralize('container', 'containers', badContainers.length)} ${joinQuote(badContainers)}`);
  }
  if (setters.length === 0) return undefined;
  const badData: string[] = [];
  const types = sortedSet(badTypes);
  if (types.length > 0) badData.push(`${pluralize('type', 'types', types.length)} ${joinQuote(types)}`);
  if (setUser) badData.push('user may not be set');
  if (setRole) badData.push('role may not be set');
  return {
    reason: 'seLinuxOptions',
    detail: `${setters.join(' and ')} set forbidden securityContext.seLinuxOptions: ${badData.join('; ')}`,
    errors,
  };
}

export const seLinuxOptionsCheck: CheckDefinition = {
  id: 'seLinuxOptions',
  level: 'baseline',
  versions: [
    { minor: 0, run: (pod) => seLinuxOptions(pod, ALLOWED_TYPES_V1_0) },
    { minor: 31, run: (pod) => seLinuxOptions(pod, ALLOWED_TYPES_V1_31) },
  ],
};
