import { dirname, resolve } from 'node:path';
import type { Operation, RuleStatus } from '@edict/engine';
import { Fields, describe } from './io/fields';
import { readYamlFile } from './io/files';
import { LoadError } from './io/load-error';
import type { ApiCallMock, ExpectedResult, TestDefinition } from './types';
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
  // Known to Kyverno but not used by the classic policy API; accepted and ignored.
  'checks',
  'jsonPayload',
  'jsonPayloads',
  'paramResources',
  'context',
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
  'isValidatingAdmissionPolicy',
  'isValidatingPolicy',
  'isMutatingPolicy',
  'isMutatingAdmissionPolicy',
  'isDeletingPolicy',
  'isImageValidatingPolicy',
  'isGeneratingPolicy',
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
  return {
    index,
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
  const statusCode = response.raw('statusCode') ?? 200;
  if (typeof statusCode !== 'number')
    throw response.error('statusCode', `expected a number, got ${describe(statusCode)}`);
  return {
    url: entry.requiredString('url'),
    method: entry.string('method')?.toUpperCase(),
    statusCode,
    body: response.raw('body') ?? null,
  };
}
