/**
 * AdmissionReviews for the webhook handlers: well-formed ones with random content (what an API
 * server could send about any object) and malformed ones, where one field the handler reads has
 * the wrong type or is missing (what a confused or hostile caller could send).
 */
import fc from 'fast-check';
import type { JsonObject, JsonValue } from '@edict/foundation';
import { anyJson, dictionary, json, objectOf, scalar, text } from './json';

const KINDS = ['Pod', 'ConfigMap', 'Deployment', 'Namespace', 'Secret', 'Service', 'CronJob', 'Job', 'Node'] as const;
const OPERATIONS = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'] as const;

const nonEmptyText = text.filter((value) => value !== '');
/** Any kind the API server could name (a DNS-1035 label, any case): custom resources included. */
const kindName = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...KINDS) },
  { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z]([-A-Za-z0-9]{0,20}[A-Za-z0-9])?$/) },
);
const group = fc.constantFrom('', 'apps', 'batch', 'kyverno.io', 'example.com');
const version = fc.constantFrom('v1', 'v1beta1', 'v2');
const labelMap = dictionary(fc.oneof({ weight: 6, arbitrary: text }, { weight: 1, arbitrary: scalar }), 6);

const metadata: fc.Arbitrary<JsonObject> = fc
  .record(
    {
      name: fc.oneof(fc.constantFrom('web', 'cm', '__proto__', ''), text),
      namespace: fc.constantFrom('default', 'kube-system', 'team-a', ''),
      generateName: text,
      labels: labelMap,
      annotations: labelMap,
      uid: text,
      resourceVersion: text,
      ownerReferences: fc.array(dictionary(json, 4), { maxLength: 2 }),
      extra: dictionary(json, 3),
    },
    { requiredKeys: [] },
  )
  .map(({ extra, ...fields }) => objectOf([...Object.entries(extra ?? {}), ...Object.entries(fields)]));

const container = fc
  .record(
    {
      name: text,
      image: fc.oneof(fc.constantFrom('nginx:1.27', 'nginx:latest', 'nginx', 'ghcr.io/a/b@sha256:abc', ''), text),
      securityContext: fc.oneof(
        fc.record(
          { privileged: fc.boolean(), runAsNonRoot: fc.boolean(), runAsUser: fc.integer() },
          { requiredKeys: [] },
        ),
        dictionary(json, 3),
      ),
      resources: fc.record({ limits: dictionary(fc.oneof(text, fc.constantFrom('1Gi', '500m', '1e3', '-1')), 2) }),
      env: fc.array(dictionary(json, 3), { maxLength: 2 }),
      extra: dictionary(json, 2),
    },
    { requiredKeys: [] },
  )
  .map(({ extra, ...fields }) => objectOf([...Object.entries(extra ?? {}), ...Object.entries(fields)]));

/** The body of an object: a Pod spec, ConfigMap data, or anything. */
type Entries = Array<[string, JsonValue]>;
const body: fc.Arbitrary<Entries> = fc.oneof(
  fc
    .record(
      { containers: fc.array(container, { maxLength: 3 }), initContainers: fc.array(container, { maxLength: 1 }) },
      { requiredKeys: [] },
    )
    .map((spec): Entries => [['spec', spec as JsonObject]]),
  dictionary(text, 6).map((data): Entries => [['data', data]]),
  dictionary(anyJson, 3).map((spec): Entries => [['spec', spec]]),
  dictionary(anyJson, 3).map((extra): Entries => Object.entries(extra)),
);

export const kubeObject: fc.Arbitrary<JsonObject> = fc
  .record({
    apiVersion: fc.oneof(fc.constantFrom('v1', 'apps/v1', 'batch/v1'), text),
    kind: kindName,
    metadata: fc.oneof({ weight: 8, arbitrary: metadata }, { weight: 1, arbitrary: json }),
    body,
  })
  .map(({ body: entries, ...header }) => objectOf([...Object.entries(header), ...entries]));

const gvk = fc.record({ group, version, kind: kindName });
const gvr = fc.record({
  group,
  version,
  resource: fc.oneof(fc.constantFrom('pods', 'configmaps', 'deployments', 'namespaces', 'pods/exec'), nonEmptyText),
});

const userInfo: fc.Arbitrary<JsonObject> = fc.record(
  {
    username: fc.oneof(fc.constantFrom('admin', 'system:serviceaccount:default:sa', 'system:admin'), text),
    uid: text,
    groups: fc.array(fc.oneof(fc.constantFrom('system:masters', 'system:authenticated'), text), { maxLength: 3 }),
    extra: dictionary(fc.array(text, { maxLength: 2 }), 2),
  },
  { requiredKeys: [] },
);

/** A request the API server could send: every field the right type, the values anything. */
export const admissionRequest: fc.Arbitrary<JsonObject> = fc
  .record(
    {
      uid: fc.oneof(fc.uuid(), nonEmptyText),
      kind: gvk,
      resource: gvr,
      subResource: fc.constantFrom('status', 'exec', 'scale', 'ephemeralcontainers'),
      requestKind: gvk,
      requestResource: gvr,
      requestSubResource: text,
      name: text,
      namespace: fc.constantFrom('default', 'team-a', 'kube-system', ''),
      operation: fc.constantFrom(...OPERATIONS),
      userInfo,
      object: kubeObject,
      oldObject: fc.oneof(kubeObject, fc.constant(null)),
      dryRun: fc.boolean(),
      options: fc.oneof(dictionary(json, 3), fc.constant(null)),
    },
    { requiredKeys: ['uid', 'kind', 'resource', 'operation'] },
  )
  .map((request) => {
    // What the parser requires for the operation, so most of these reach the policies.
    if ((request.operation === 'CREATE' || request.operation === 'UPDATE') && !request.object)
      return { ...request, object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } } };
    if (request.operation === 'DELETE' && !request.oldObject && !request.object)
      return { ...request, oldObject: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } } };
    return request;
  }) as fc.Arbitrary<JsonObject>;

export const admissionReview: fc.Arbitrary<JsonObject> = admissionRequest.map((request) => ({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request,
}));

/** Every field of the review the handlers read, as a path from the review's root. */
export const READ_FIELDS: ReadonlyArray<readonly string[]> = [
  [],
  ['apiVersion'],
  ['kind'],
  ['request'],
  ['request', 'uid'],
  ['request', 'kind'],
  ['request', 'kind', 'group'],
  ['request', 'kind', 'version'],
  ['request', 'kind', 'kind'],
  ['request', 'resource'],
  ['request', 'resource', 'group'],
  ['request', 'resource', 'version'],
  ['request', 'resource', 'resource'],
  ['request', 'subResource'],
  ['request', 'requestKind'],
  ['request', 'requestKind', 'kind'],
  ['request', 'requestKind', 'group'],
  ['request', 'requestResource'],
  ['request', 'requestSubResource'],
  ['request', 'name'],
  ['request', 'namespace'],
  ['request', 'operation'],
  ['request', 'userInfo'],
  ['request', 'userInfo', 'username'],
  ['request', 'userInfo', 'uid'],
  ['request', 'userInfo', 'groups'],
  ['request', 'userInfo', 'extra'],
  ['request', 'object'],
  ['request', 'object', 'apiVersion'],
  ['request', 'object', 'kind'],
  ['request', 'object', 'metadata'],
  ['request', 'object', 'metadata', 'name'],
  ['request', 'object', 'metadata', 'namespace'],
  ['request', 'object', 'metadata', 'labels'],
  ['request', 'object', 'metadata', 'annotations'],
  ['request', 'object', 'metadata', 'ownerReferences'],
  ['request', 'object', 'spec'],
  ['request', 'object', 'spec', 'containers'],
  ['request', 'object', 'data'],
  ['request', 'oldObject'],
  ['request', 'oldObject', 'metadata'],
  ['request', 'oldObject', 'metadata', 'labels'],
  ['request', 'dryRun'],
  ['request', 'options'],
];

/** A value of some type, likely not the one the field wants. */
const wrongValue: fc.Arbitrary<JsonValue | undefined> = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.constant([] as JsonValue[]),
  fc.constant({} as JsonObject),
  fc.constant(''),
  fc.integer(),
  fc.boolean(),
  text,
  fc.array(scalar, { minLength: 1, maxLength: 3 }),
  dictionary(scalar, 2),
);

/** One field of `review` at `path` replaced (undefined: removed), creating parents as needed. */
export function withField(review: JsonValue, path: readonly string[], value: JsonValue | undefined): JsonValue {
  if (path.length === 0) return value ?? null;
  const [head, ...rest] = path;
  const base = review !== null && typeof review === 'object' && !Array.isArray(review) ? review : {};
  const entries = Object.entries(base).filter(([name]) => name !== head);
  const child = withField(base[head] ?? {}, rest, value);
  if (rest.length === 0 && value === undefined) return objectOf(entries);
  return objectOf([...entries, [head, child]]);
}

export interface MalformedReview {
  /** The field that was broken. */
  path: readonly string[];
  review: JsonValue;
}

/** A well-formed review with one field it reads given a wrong value or removed. */
export const malformedReview: fc.Arbitrary<MalformedReview> = fc
  .tuple(admissionReview, fc.constantFrom(...READ_FIELDS), wrongValue)
  .map(([review, path, value]) => ({ path, review: withField(review, path, value) }));

/**
 * A well-formed review, as text, whose object's data nests thousands of levels deep: written as text
 * because JSON.stringify itself (and fast-check printing a counterexample) would overflow the stack.
 */
export const tooDeepReviewText: fc.Arbitrary<string> = fc
  .tuple(admissionReview, fc.integer({ min: 1_000, max: 30_000 }), fc.constantFrom('[', '{"a":'))
  .map(([review, depth, open]) => {
    const marker = 'deep-data-marker-5c1e';
    const text = JSON.stringify(withField(review, ['request', 'object', 'data'], marker));
    const close = open === '[' ? ']' : '}';
    return text.replace(`"${marker}"`, `${open.repeat(depth)}0${close.repeat(depth)}`);
  });

/** Bodies that are not JSON objects at all, as raw text. */
export const junkBody: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('', ' ', 'null', '[]', '"x"', '1', '{', '{"apiVersion":', '{"a":1}}', '\u0000', 'true'),
  fc.string({ maxLength: 40 }),
  json.map((value) => JSON.stringify(value) ?? 'null'),
);
