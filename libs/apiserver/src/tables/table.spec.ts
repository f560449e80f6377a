import { describe, expect, it } from 'vitest';
import type { JsonObject } from '@edict/foundation';
import { BUILTIN_TYPES } from '../registry/builtin-types';
import { typesFromCrd } from '../registry/crd';
import type { ResourceType } from '../registry/resource-type';
import { ApiError } from '../status';
import { printerFor, requestedRepresentation, tableRequest, toTable } from './table';

const KUBECTL_ACCEPT =
  'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
const NOW = Date.parse('2026-01-01T00:10:00Z');
const CREATED = '2026-01-01T00:00:00Z';
const none = new URLSearchParams();
const builtin = (plural: string): ResourceType => BUILTIN_TYPES.find((type) => type.plural === plural)!;
const cells = (plural: string, object: JsonObject) => printerFor(builtin(plural)).cells(object, NOW);
const names = (type: ResourceType) => printerFor(type).columns.map((c) => `${c.name}${c.priority ? '*' : ''}`);

describe('tableRequest', () => {
  it("takes the first Table it serves from kubectl's Accept header, with includeObject (Metadata by default)", () => {
    expect(tableRequest(KUBECTL_ACCEPT, none)).toEqual({ apiVersion: 'meta.k8s.io/v1', includeObject: 'Metadata' });
    expect(
      tableRequest('application/json;as=Table;v=v1beta1;g=meta.k8s.io', new URLSearchParams('includeObject=None')),
    ).toEqual({ apiVersion: 'meta.k8s.io/v1beta1', includeObject: 'None' });
  });

  it('answers plain JSON when a plain type comes first, by order or by q, or with no Accept header', () => {
    expect(tableRequest(undefined, none)).toBeUndefined();
    expect(tableRequest('application/json', none)).toBeUndefined();
    expect(tableRequest('application/json, application/json;as=Table;v=v1;g=meta.k8s.io', none)).toBeUndefined();
    expect(
      tableRequest('application/json;as=Table;v=v1;g=meta.k8s.io;q=0.5, application/json;q=0.9', none),
    ).toBeUndefined();
  });

  it('skips conversions it lacks for the next range, and answers 406 when none is left', () => {
    const discovery = 'application/json;as=APIGroupDiscoveryList;v=v2;g=apidiscovery.k8s.io';
    expect(tableRequest(`${discovery},application/json`, none)).toBeUndefined();
    expect(tableRequest(`${discovery},${KUBECTL_ACCEPT}`, none)?.apiVersion).toBe('meta.k8s.io/v1');
    // PartialObjectMetadata is served: asked for first, it wins over the Table.
    const partial = 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io';
    expect(tableRequest(`${partial},${KUBECTL_ACCEPT}`, none)).toBeUndefined();
    expect(requestedRepresentation(`${partial},${KUBECTL_ACCEPT}`, none)).toEqual({
      as: 'PartialObjectMetadataList',
      apiVersion: 'meta.k8s.io/v1',
    });
    const refused = () =>
      tableRequest(`${discovery},application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io`, none);
    expect(refused).toThrow(ApiError);
    expect(refused).toThrow(/none of the requested media types can be served/);
    expect(() => tableRequest('application/json;as=Table;v=v2;g=meta.k8s.io', none)).toThrow(
      expect.objectContaining({ code: 406, reason: 'NotAcceptable' }),
    );
  });

  it('refuses an unknown includeObject with 400', () => {
    expect(() => tableRequest(KUBECTL_ACCEPT, new URLSearchParams('includeObject=All'))).toThrow(
      expect.objectContaining({
        code: 400,
        message: expect.stringContaining('includeObject: Unsupported value: "All"'),
      }),
    );
  });
});

describe('built-in printers', () => {
  it('lay out the columns of kube for the kinds they know, Name and Age for the others', () => {
    expect(names(builtin('pods'))).toEqual([
      'Name',
      'Ready',
      'Status',
      'Restarts',
      'Age',
      'IP*',
      'Node*',
      'Nominated Node*',
      'Readiness Gates*',
    ]);
    expect(names(builtin('services'))).toEqual([
      'Name',
      'Type',
      'Cluster-IP',
      'External-IP',
      'Port(s)',
      'Age',
      'Selector*',
    ]);
    expect(names(builtin('roles'))).toEqual(['Name', 'Age']);
  });

  it('fill pod cells from status: readiness, restarts, container reasons, and Terminating while deleted', () => {
    const pod = (status: JsonObject, metadata: JsonObject = {}, spec: JsonObject = {}) => ({
      metadata: { name: 'p', creationTimestamp: CREATED, ...metadata },
      spec: { containers: [{ name: 'a' }, { name: 'b' }], ...spec },
      status,
    });
    expect(cells('pods', pod({ phase: 'Pending' }))).toEqual([
      'p',
      '0/2',
      'Pending',
      0,
      '10m',
      '<none>',
      '<none>',
      '<none>',
      '<none>',
    ]);
    const running = pod(
      {
        phase: 'Running',
        podIP: '10.0.0.7',
        conditions: [{ type: 'gate/x', status: 'True' }],
        containerStatuses: [
          { name: 'a', ready: true, restartCount: 2, state: { running: {} } },
          { name: 'b', ready: false, restartCount: 1, state: { waiting: { reason: 'CrashLoopBackOff' } } },
        ],
      },
      {},
      { nodeName: 'n1', readinessGates: [{ conditionType: 'gate/x' }, { conditionType: 'gate/y' }] },
    );
    expect(cells('pods', running)).toEqual([
      'p',
      '1/2',
      'CrashLoopBackOff',
      3,
      '10m',
      '10.0.0.7',
      'n1',
      '<none>',
      '1/2',
    ]);
    const exited = pod({ phase: 'Running', containerStatuses: [{ state: { terminated: { exitCode: 3 } } }] });
    expect(cells('pods', exited)[2]).toBe('ExitCode:3');
    expect(cells('pods', pod({ phase: 'Running' }, { deletionTimestamp: CREATED }))[2]).toBe('Terminating');
  });

  it('fill service, deployment, secret, config map and namespace cells', () => {
    const service = (spec: JsonObject, status: JsonObject = {}) => ({
      metadata: { name: 's', creationTimestamp: CREATED },
      spec,
      status,
    });
    expect(
      cells(
        'services',
        service({
          clusterIP: '10.96.0.9',
          ports: [{ port: 80 }, { port: 53, protocol: 'UDP' }],
          selector: { b: '2', a: '1' },
        }),
      ),
    ).toEqual(['s', 'ClusterIP', '10.96.0.9', '<none>', '80/TCP,53/UDP', '10m', 'a=1,b=2']);
    expect(cells('services', service({ type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] }))[4]).toBe(
      '80:30080/TCP',
    );
    expect(cells('services', service({ type: 'LoadBalancer' }))[3]).toBe('<pending>');
    expect(
      cells('services', service({ type: 'LoadBalancer' }, { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } }))[3],
    ).toBe('1.2.3.4');
    expect(cells('services', service({ type: 'ExternalName', externalName: 'db.example.com' }))[3]).toBe(
      'db.example.com',
    );

    const deployment = {
      metadata: { name: 'web', creationTimestamp: CREATED },
      spec: {
        replicas: 3,
        selector: {
          matchLabels: { app: 'web' },
          matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'a'] }],
        },
        template: {
          spec: {
            containers: [
              { name: 'app', image: 'nginx:1' },
              { name: 'log', image: 'busybox' },
            ],
          },
        },
      },
      status: { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 },
    };
    expect(cells('deployments', deployment)).toEqual([
      'web',
      '2/3',
      3,
      2,
      '10m',
      'app,log',
      'nginx:1,busybox',
      'app=web,tier in (a,b)',
    ]);
    expect(cells('secrets', { metadata: { name: 's' }, type: 'Opaque', data: { a: 'eA==', b: 'eQ==' } })).toEqual([
      's',
      'Opaque',
      2,
      '<unknown>',
    ]);
    expect(cells('configmaps', { metadata: { name: 'c' }, data: { a: '1' }, binaryData: { b: 'eQ==' } })[1]).toBe(2);
    expect(cells('namespaces', { metadata: { name: 'n' }, status: { phase: 'Active' } })[1]).toBe('Active');
  });
});

const crd = (columns?: JsonObject[]): ResourceType =>
  typesFromCrd({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'policyreports.wgpolicyk8s.io' },
    spec: {
      group: 'wgpolicyk8s.io',
      scope: 'Namespaced',
      names: { plural: 'policyreports', kind: 'PolicyReport' },
      versions: [
        { name: 'v1alpha2', served: true, storage: true, ...(columns ? { additionalPrinterColumns: columns } : {}) },
      ],
    },
  })[0]!;

describe('custom resource printers', () => {
  const columns: JsonObject[] = [
    { name: 'Kind', type: 'string', jsonPath: '.scope.kind', priority: 1 },
    { name: 'Pass', type: 'integer', jsonPath: '.summary.pass' },
    { name: 'Score', type: 'number', jsonPath: '.summary.score' },
    { name: 'Scored', type: 'boolean', jsonPath: '.scored' },
    { name: 'Results', type: 'string', jsonPath: '.results[0]' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ];
  const report = {
    apiVersion: 'wgpolicyk8s.io/v1alpha2',
    kind: 'PolicyReport',
    metadata: { name: 'r', namespace: 'team', creationTimestamp: CREATED },
    scope: { kind: 'Pod' },
    summary: { pass: 2.0, score: 'high' },
    scored: 'yes',
    results: [{ policy: 'p' }],
  };

  it('put Name first, then the declared columns with their priorities, typed cells (a mistyped value is empty)', () => {
    const type = crd(columns);
    expect(names(type)).toEqual(['Name', 'Kind*', 'Pass', 'Score', 'Scored', 'Results', 'Age']);
    expect(printerFor(type).columns[2]).toEqual({
      name: 'Pass',
      type: 'integer',
      format: '',
      description: 'Custom resource definition column (in JSONPath format): .summary.pass',
      priority: 0,
    });
    expect(printerFor(type).cells(report, NOW)).toEqual(['r', 'Pod', 2, null, null, '{"policy":"p"}', '10m']);
  });

  it('show Name and Age when the version declares no columns', () => {
    expect(names(crd())).toEqual(['Name', 'Age']);
    expect(printerFor(crd()).cells(report, NOW)).toEqual(['r', '10m']);
  });

  it('name each column whose path cannot be evaluated here', () => {
    const type = crd([{ name: 'Deep', type: 'string', jsonPath: '..name' }]);
    expect(printerFor(type).problems).toEqual([
      'printer column "Deep": jsonPath "..name": recursive descent ("..") is not supported',
    ]);
    expect(printerFor(type).cells(report, NOW)).toEqual(['r', null]);
  });
});

describe('toTable', () => {
  const type = crd();
  const object = {
    apiVersion: 'wgpolicyk8s.io/v1alpha2',
    kind: 'PolicyReport',
    metadata: { name: 'r', creationTimestamp: CREATED },
  };
  const table = (includeObject: 'None' | 'Metadata' | 'Object', headers = true) =>
    toTable(
      type,
      [object],
      { resourceVersion: '7' },
      { apiVersion: 'meta.k8s.io/v1', includeObject },
      { headers, now: NOW },
    );

  it('carries each row object as includeObject asks: PartialObjectMetadata, the object, or none', () => {
    expect(table('Metadata')).toMatchObject({
      kind: 'Table',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { resourceVersion: '7' },
      rows: [
        {
          cells: ['r', '10m'],
          object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: object.metadata },
        },
      ],
    });
    expect((table('Object').rows as JsonObject[])[0]!.object).toEqual(object);
    expect((table('None').rows as JsonObject[])[0]!.object).toBeNull();
  });

  it('leaves the column definitions out when asked (watch events after the first)', () => {
    expect((table('None').columnDefinitions as JsonObject[]).map((c) => c.name)).toEqual(['Name', 'Age']);
    expect(table('None', false).columnDefinitions).toBeNull();
  });
});
