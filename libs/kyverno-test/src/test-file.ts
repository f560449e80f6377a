import { dirname, resolve } from 'node:path';
import type { Operation, RuleStatus } from '@edict/engine';
import { isObject } from '@edict/foundation';
import { Fields, describe } from './io/fields';
import { readYamlFile } from './io/files';
import { LoadError } from './io/load-error';
import {
  type ApiCallMock,
  CEL_RESULT_FLAGS,
  type CelResultKind,
  type ExpectedResult,
  type GlobalContextMock,
  type TestDefinition,
} from './types';
import { parseValuesSpec } from './values-file';

const TEST_FIELDS = [
  'apiVersion',
  'kind',
  'metadata',
  'name',
  'policies',
  'resources',
  'targetResources',
  'variables',
  'userinfo',
  'results',
  'values',
  'exceptions',
  'clusterResources',
  'apiCallResponses',
  'context',
  'jsonPayload',
  'jsonPayloads',
  'paramResources',
  'globalContextEntries',
  // Known to Kyverno but not run by Edict yet (payloads of its Envoy and HTTP authorization policies,
  // assertion checks); accepted, and a test that relies on them fails for want of results.
  'checks',
  'httpPayloads',
  'envoyPayloads',
];

const RESULT_FIELDS = [
  'policy',
  'rule',
  'result',
  'status',
  'kind',
  'resources',
  'resource',
  'namespace',
  'operation',
  'patchedResources',
  'patchedResource',
  'generatedResource',
  'cloneSourceResource',
  ...Object.keys(CEL_RESULT_FLAGS),
];

const RESULTS: readonly RuleStatus[] = ['pass', 'fail', 'warn', 'error', 'skip'];
const OPERATIONS: readonly Operation[] = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'];

/** Reads and checks one test file; paths inside stay relative to the file's directory. */
export function loadTestFile(file: string): TestDefinition {
  const absolute = resolve(file);
  const documents = readYamlFile(absolute);
  if (documents.length === 0) throw new LoadError(absolute, undefined, 'the file holds no test');
  if (documents.length > 1)
    throw new LoadError(absolute, undefined, `expected one test document, found ${documents.length}`);
  return parseTestDefinition(documents[0].value, absolute);
}

export function parseTestDefinition(document: Parameters<typeof Fields.of>[0], file: string): TestDefinition {
  const test = Fields.of(document, file);
  test.rejectUnknown(TEST_FIELDS);
  const kind = test.string('kind');
  if (kind !== undefined && kind !== 'Test') throw test.error('kind', `expected Test, got ${JSON.stringify(kind)}`);
  const name = test.object('metadata')?.string('name') ?? test.string('name') ?? '';
  const values = test.object('values');
  return {
    file,
    dir: dirname(file),
    name,
    policies: test.stringList('policies'),
    resources: test.stringList('resources'),
    targetResources: test.stringList('targetResources'),
    exceptions: test.stringList('exceptions'),
    clusterResources: test.stringList('clusterResources'),
    variables: test.string('variables') || undefined,
    values: values ? parseValuesSpec(values, false) : undefined,
    userinfo: test.string('userinfo') || undefined,
    apiCallResponses: test.objectList('apiCallResponses').map(parseApiCallMock),
    context: test.string('context') || undefined,
    jsonPayloads: [
      ...test.stringList('jsonPayloads'),
      ...(test.string('jsonPayload') ? [test.string('jsonPayload')!] : []),
    ],
    paramResources: test.stringList('paramResources'),
    globalContextEntries: test.objectList('globalContextEntries').map(parseGlobalContextMock),
    results: test.objectList('results').map(parseExpectedResult),
  };
}

function parseExpectedResult(entry: Fields, index: number): ExpectedResult {
  entry.rejectUnknown(RESULT_FIELDS);
  const expected = entry.string('result') || entry.string('status');
  if (!expected) throw entry.error('result', 'is required');
  if (!RESULTS.includes(expected as RuleStatus)) {
    throw entry.error('result', `expected one of ${RESULTS.join(', ')}, got ${JSON.stringify(expected)}`);
  }
  const resources = entry.stringList('resources');
  const single = entry.string('resource');
  if (resources.length === 0 && single) resources.push(single);
  const operation = entry.string('operation')?.toUpperCase();
  if (operation !== undefined && !OPERATIONS.includes(operation as Operation)) {
    throw entry.error('operation', `expected one of ${OPERATIONS.join(', ')}, got ${JSON.stringify(operation)}`);
  }
  const flags = Object.entries(CEL_RESULT_FLAGS).filter(([flag]) => flagSet(entry, flag));
  if (flags.length > 1)
    throw entry.error(flags[1][0], `conflicts with ${flags[0][0]}: a result is about one kind of policy`);
  const celKind: CelResultKind | undefined = flags[0]?.[1];
  return {
    index,
    ...(celKind ? { celKind } : {}),
    policy: entry.requiredString('policy'),
    rule: entry.string('rule') ?? '',
    kind: entry.string('kind') ?? '',
    result: expected as RuleStatus,
    resources,
    namespace: entry.string('namespace') || undefined,
    operation: operation as Operation | undefined,
    patchedResources: entry.string('patchedResources') || entry.string('patchedResource') || undefined,
    generatedResource: entry.string('generatedResource') || undefined,
    cloneSourceResource: entry.string('cloneSourceResource') || undefined,
  };
}

function parseApiCallMock(entry: Fields): ApiCallMock {
  entry.rejectUnknown(['url', 'method', 'response']);
  const response = entry.object('response');
  if (!response) throw entry.error('response', 'is required');
  response.rejectUnknown(['statusCode', 'body', 'headers']);
  const given = response.raw('statusCode') ?? 0;
  if (typeof given !== 'number') throw response.error('statusCode', `expected a number, got ${describe(given)}`);
  const statusCode = given === 0 ? 200 : given; // 0 or absent: 200, as Kyverno defaults it
  if (statusCode < 100 || statusCode > 599)
    throw response.error('statusCode', `${statusCode} must be between 100 and 599`);
  const method = entry.string('method')?.toUpperCase() || undefined;
  if (method !== undefined && method !== 'GET' && method !== 'POST')
    throw entry.error('method', `expected GET or POST, got ${JSON.stringify(method)}`);
  return {
    url: entry.requiredString('url'),
    method,
    statusCode,
    body: response.raw('body') ?? null,
  };
}

function flagSet(entry: Fields, flag: string): boolean {
  const value = entry.raw(flag);
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw entry.error(flag, `expected true or false, got ${describe(value)}`);
  return value;
}

/**
 * A mocked GlobalContextEntry: `name`, and its value as `data`, as inline `resources` (a list of
 * objects) or as the objects of `resourceFiles` (paths relative to the test, read when the test is
 * loaded), with named `projections` (a JMESPath `path` over that value).
 */
function parseGlobalContextMock(entry: Fields): GlobalContextMock {
  entry.rejectUnknown(['name', 'data', 'fieldPath', 'resources', 'resourceFiles', 'projections']);
  const resourceFiles = entry.stringList('resourceFiles');
  const sources = ['data', 'resources', 'resourceFiles'].filter((field) => entry.has(field));
  if (sources.length > 1) throw entry.error(sources[1], `conflicts with ${sources[0]}: give the value one way`);
  if (entry.has('data') && !isObject(entry.raw('data')))
    throw entry.error('data', `expected a JSON object, got ${describe(entry.raw('data'))}`);
  if (sources.length === 0) throw entry.error('data', 'is required (or resources, or resourceFiles)');
  const resources = entry.raw('resources');
  if (resources !== undefined && resources !== null && !Array.isArray(resources))
    throw entry.error('resources', `expected a list of objects, got ${describe(resources)}`);
  return {
    name: entry.requiredString('name'),
    data: entry.raw('data') ?? resources ?? null,
    ...(entry.string('fieldPath') ? { fieldPath: entry.string('fieldPath') } : {}),
    resourceFiles,
    projections: entry.objectList('projections').map((projection) => {
      projection.rejectUnknown(['name', 'path']);
      const path = projection.string('path')?.trim();
      if (!path) throw projection.error('path', 'is required');
      return { name: projection.requiredString('name'), path };
    }),
  };
}
