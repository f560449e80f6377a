/** Reading one operation (an item of try/catch/finally/cleanup) from its YAML. */
import { isObject } from '@edict/foundation';
import { Fields } from './fields';
import type { BindingSpec, Expectation, Operation, OutputSpec, Timeouts } from './model';

const RESOURCE_OPS = ['apply', 'create', 'update', 'patch', 'assert', 'error', 'delete'] as const;
const LOG_OPS = ['describe', 'events', 'podLogs', 'get', 'proxy'] as const;
const OPERATION_KINDS = [...RESOURCE_OPS, ...LOG_OPS, 'script', 'command', 'sleep', 'wait'] as const;
const PROPAGATION = ['Background', 'Foreground', 'Orphan'] as const;
const CLUSTER_FIELDS = ['cluster', 'clusters'];

export function readOperation(fields: Fields, index: number): Operation {
  const kinds = OPERATION_KINDS.filter((kind) => fields.has(kind));
  const allowed = ['description', 'continueOnError', ...OPERATION_KINDS];
  // Construct for the unknown-field check.
  new Fields(fields.source, fields.value, fields.path, allowed);
  if (kinds.length !== 1) {
    throw fields.error(
      kinds.length === 0
        ? `an operation needs exactly one of ${OPERATION_KINDS.join(', ')}`
        : `an operation holds exactly one action, found ${kinds.join(' and ')}`,
    );
  }
  const type = kinds[0]!;
  const base = {
    index,
    description: fields.string('description'),
    continueOnError: fields.boolean('continueOnError') ?? false,
  };
  const common = ['timeout', 'bindings', 'outputs', ...CLUSTER_FIELDS];

  if ((RESOURCE_OPS as readonly string[]).includes(type)) {
    const resourceType = type as (typeof RESOURCE_OPS)[number];
    const allowedFields =
      resourceType === 'delete'
        ? [...common, 'file', 'ref', 'template', 'expect', 'deletionPropagationPolicy']
        : resourceType === 'assert' || resourceType === 'error'
          ? [...common, 'file', 'resource', 'template']
          : [...common, 'file', 'resource', 'template', 'expect', 'dryRun'];
    const op = fields.object(type, allowedFields)!;
    rejectClusters(op);
    const file = op.string('file');
    const resource = op.tree('resource');
    const ref = resourceType === 'delete' ? op.tree('ref') : undefined;
    const sources = [file, resource, ref].filter((s) => s !== undefined).length;
    if (sources !== 1) {
      throw op.error(
        resourceType === 'delete'
          ? 'delete needs exactly one of file, ref'
          : `${resourceType} needs exactly one of file, resource`,
      );
    }
    if (op.boolean('dryRun')) throw op.error('dryRun is not supported by this runner', [...op.path, 'dryRun']);
    return {
      ...base,
      type: resourceType,
      file,
      resource,
      ref,
      template: op.boolean('template'),
      expect: readExpectations(op),
      deletionPropagationPolicy: op.oneOf('deletionPropagationPolicy', PROPAGATION),
      bindings: readBindings(op),
      outputs: readOutputs(op),
      timeout: op.duration('timeout'),
    };
  }

  if (type === 'script' || type === 'command') {
    const own = type === 'script' ? ['content'] : ['entrypoint', 'args'];
    const op = fields.object(type, [
      ...common,
      ...own,
      'env',
      'check',
      'skipLogOutput',
      'skipCommandOutput',
      'workDir',
    ])!;
    rejectClusters(op);
    const args = op.array('args').map((arg, i) => {
      if (typeof arg !== 'string') throw op.error('expected a string', [...op.path, 'args', i]);
      return arg;
    });
    return {
      ...base,
      type,
      content: type === 'script' ? op.string('content', true) : undefined,
      entrypoint: type === 'command' ? op.string('entrypoint', true) : undefined,
      args,
      env: op.objects('env', ['name', 'value']).map((env) => ({
        name: env.string('name', true)!,
        value: env.raw('value') ?? '',
      })),
      check: op.tree('check'),
      workDir: op.string('workDir'),
      skipLogOutput: op.boolean('skipLogOutput') ?? false,
      bindings: readBindings(op),
      outputs: readOutputs(op),
      timeout: op.duration('timeout'),
    };
  }

  if (type === 'sleep') {
    const op = fields.object(type, ['duration'])!;
    const duration = op.duration('duration');
    if (duration === undefined) throw op.error('required field is missing', [...op.path, 'duration']);
    return { ...base, type, duration, bindings: [], outputs: [] };
  }

  if (type === 'wait') {
    const op = fields.object(type, [
      'timeout',
      ...CLUSTER_FIELDS,
      'apiVersion',
      'kind',
      'name',
      'namespace',
      'selector',
      'format',
      'for',
    ])!;
    rejectClusters(op);
    const waitFor = op.object('for', ['deletion', 'condition', 'jsonPath']);
    if (!waitFor) throw op.error('required field is missing', [...op.path, 'for']);
    if (waitFor.has('jsonPath'))
      throw waitFor.error('for.jsonPath is not supported by this runner', [...waitFor.path, 'jsonPath']);
    const condition = waitFor.object('condition', ['name', 'value']);
    const deletion = waitFor.object('deletion', []);
    if (!condition && !deletion) throw waitFor.error('needs one of deletion, condition');
    return {
      ...base,
      type,
      apiVersion: op.string('apiVersion', true)!,
      kind: op.string('kind', true)!,
      name: op.string('name'),
      namespace: op.string('namespace'),
      selector: op.string('selector'),
      for: {
        deletion: deletion !== undefined,
        condition: condition ? { name: condition.string('name', true)!, value: condition.string('value') } : undefined,
      },
      timeout: op.duration('timeout'),
      bindings: [],
      outputs: [],
    };
  }

  // Read-only operations only print diagnostics in chainsaw: accepted, nothing to check.
  const value = fields.raw(type);
  if (value !== undefined && !isObject(value)) throw fields.error('expected an object', [...fields.path, type]);
  return { ...base, type: type as (typeof LOG_OPS)[number], bindings: [], outputs: [] };
}

function rejectClusters(op: Fields): void {
  for (const key of CLUSTER_FIELDS) {
    if (op.has(key)) throw op.error('multiple clusters are not supported by this runner', [...op.path, key]);
  }
}

export function readBindings(fields: Fields, key = 'bindings'): BindingSpec[] {
  return fields.objects(key, ['name', 'value', 'compiler']).map((binding) => {
    const compiler = binding.string('compiler');
    if (compiler !== undefined && compiler !== 'jp') {
      throw binding.error(`the ${compiler} compiler is not supported`, [...binding.path, 'compiler']);
    }
    return { name: binding.string('name', true)!, value: binding.raw('value') ?? null };
  });
}

function readOutputs(fields: Fields): OutputSpec[] {
  return fields.objects('outputs', ['name', 'value', 'match']).map((output) => ({
    name: output.string('name', true)!,
    value: output.raw('value') ?? null,
    match: output.raw('match'),
  }));
}

function readExpectations(fields: Fields): Expectation[] {
  return fields.objects('expect', ['match', 'check']).map((expectation) => {
    const check = expectation.raw('check');
    if (check === undefined) throw expectation.error('required field is missing', [...expectation.path, 'check']);
    return { match: expectation.raw('match'), check };
  });
}

export function readTimeouts(fields: Fields, key = 'timeouts'): Timeouts {
  const timeouts = fields.object(key, ['apply', 'assert', 'cleanup', 'delete', 'error', 'exec']);
  if (!timeouts) return {};
  const out: Timeouts = {};
  for (const kind of ['apply', 'assert', 'cleanup', 'delete', 'error', 'exec'] as const) {
    const value = timeouts.duration(kind);
    if (value !== undefined) out[kind] = value;
  }
  return out;
}

export function readOperations(fields: Fields, key: string): Operation[] {
  return fields.array(key).map((item, i) => {
    const path = [...fields.path, key, i];
    if (!isObject(item)) throw fields.error('expected an object', path);
    return readOperation(new Fields(fields.source, item, path, Object.keys(item)), i);
  });
}
