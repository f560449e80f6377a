/**
 * Kyverno ClusterPolicy and Policy documents: the structure Kyverno knows (match/exclude, patterns
 * with anchors and operators, deny conditions, preconditions, `{{ }}` variables, foreach, mutate
 * patches, podSecurity, generate) filled with random values, and with junk of any JSON type in any
 * field now and then.
 */
import fc from 'fast-check';
import type { JsonObject, JsonValue } from '@edict/foundation';
import { anyJson, dictionary, json, key, objectOf, text } from './json';

/**
 * A record whose fields are each present or not (the `rare` ones seldom: fields that make most
 * policies invalid, such as user info in match without `background: false`); now and then an
 * extra field with a tricky key.
 */
function loose(
  fields: Record<string, fc.Arbitrary<JsonValue>>,
  rare: readonly string[] = [],
): fc.Arbitrary<JsonObject> {
  const weighted = Object.fromEntries(
    Object.entries(fields).map(([name, arbitrary]) => [
      name,
      rare.includes(name)
        ? fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary })
        : fc.option(arbitrary, { nil: undefined }),
    ]),
  );
  return fc
    .tuple(
      fc.record(weighted),
      fc.oneof({ weight: 9, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: dictionary(json, 2) }),
    )
    .map(([known, extra]) =>
      objectOf([
        ...Object.entries(extra),
        ...Object.entries(known).filter((entry): entry is [string, JsonValue] => entry[1] !== undefined),
      ]),
    );
}

/** Every path to a value inside `value` (the root excluded). */
function pathsIn(value: JsonValue, prefix: Array<string | number> = [], out: Array<Array<string | number>> = []) {
  const children: Array<[string | number, JsonValue]> = Array.isArray(value)
    ? value.map((item, i) => [i, item])
    : value !== null && typeof value === 'object'
      ? Object.entries(value)
      : [];
  for (const [step, item] of children) {
    out.push([...prefix, step]);
    pathsIn(item, [...prefix, step], out);
  }
  return out;
}

/** `value` with the value at `path` replaced (copying along the path, own keys kept). */
function replaceAt(value: JsonValue, path: ReadonlyArray<string | number>, junk: JsonValue): JsonValue {
  if (path.length === 0) return junk;
  const [head, ...rest] = path;
  if (Array.isArray(value)) return value.map((item, i) => (i === head ? replaceAt(item, rest, junk) : item));
  const entries = Object.entries(value as JsonObject);
  return objectOf(entries.map(([name, item]) => [name, name === head ? replaceAt(item, rest, junk) : item]));
}

/** `document` with one to three of its fields, anywhere, replaced by any JSON at all. */
function withJunk(document: fc.Arbitrary<JsonObject>): fc.Arbitrary<JsonObject> {
  return fc
    .tuple(document, fc.array(fc.tuple(fc.nat(), anyJson), { minLength: 1, maxLength: 3 }))
    .map(([doc, replacements]) => {
      let out: JsonValue = doc;
      for (const [pick, junk] of replacements) {
        const paths = pathsIn(out);
        if (paths.length > 0) out = replaceAt(out, paths[pick % paths.length]!, junk);
      }
      return out as JsonObject;
    });
}

// --- variables and expressions ------------------------------------------------------------------

const JMESPATH_PIECES = [
  'request.object.metadata.name',
  'request.object.metadata.labels',
  'request.object.metadata.labels."app.kubernetes.io/name"',
  'request.object.metadata.labels.__proto__',
  'request.object.data.__proto__',
  'request.object.spec.containers[].image',
  'request.object.spec.containers[0].securityContext.privileged',
  'request.operation',
  'request.userInfo.username',
  'request.oldObject.metadata.labels',
  'serviceAccountName',
  'images.containers.*.tag',
  'element.name',
  'element.image',
  'elementIndex',
  '@',
  'length(request.object.spec.containers)',
  "to_upper(request.object.metadata.name || '')",
  "split(request.object.metadata.name || '', '-')",
  "contains(keys(request.object.metadata.labels || `{}`), 'team')",
  "truncate(request.object.metadata.name || '', `3`)",
  "base64_encode(request.object.metadata.name || '')",
  "lookup(request.object.metadata.labels || `{}`, '__proto__')",
  "items(request.object.metadata.labels || `{}`, 'k', 'v')",
  'object_from_lists([\'__proto__\'], [`{"polluted": true}`])',
  'merge(`{}`, request.object.metadata.labels || `{}`)',
  'to_string(`1e308`)',
  'divide(`1`, `0`)',
  'sum([`1e308`, `1e308`])',
  'time_now_utc()',
  'parse_json(\'{"__proto__": {"polluted": 1}}\')',
  "x509_decode('junk')",
  "semver_compare('1.2.3', '>1.0.0')",
  '[',
  '`',
  "'",
  'request.object.metadata.labels.{{x}}',
] as const;

const expression: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...JMESPATH_PIECES) },
  { weight: 1, arbitrary: text },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom(...JMESPATH_PIECES),
        fc.constantFrom(' || ', ' && ', ' | ', '.'),
        fc.constantFrom(...JMESPATH_PIECES),
      )
      .map(([a, op, b]) => `${a}${op}${b}`),
  },
);

const variable = expression.map((e) => `{{ ${e} }}`);

/** A scalar a policy author could write: plain, an operator expression, a wildcard or a variable. */
const policyScalar: fc.Arbitrary<JsonValue> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '?*',
      '*',
      '!nginx',
      '>1',
      '<=2Gi',
      '1-5',
      '1!-5',
      'a | b',
      '!*:latest',
      'true',
      '',
      'null',
      '>10s',
      '0.5',
      '<1.2.3',
    ),
  },
  { weight: 2, arbitrary: variable },
  { weight: 1, arbitrary: fc.tuple(text, variable, text).map(([a, v, b]) => `${a}${v}${b}`) },
  { weight: 2, arbitrary: text },
  {
    weight: 1,
    arbitrary: fc.oneof(
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.boolean(),
      fc.constant(null),
    ),
  },
);

const anchoredKey: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom('', '=', '+', 'X', '^', '<', '(', '$'),
    fc.oneof(
      fc.constantFrom(
        'name',
        'labels',
        'image',
        'privileged',
        'data',
        'containers',
        'metadata',
        'spec',
        '__proto__',
        'constructor',
        'team',
      ),
      key,
    ),
  )
  .map(([anchor, name]) =>
    anchor === '' ? name : anchor === '$' ? `$(${name})` : anchor === '(' ? `(${name})` : `${anchor}(${name})`,
  );

/** A pattern or overlay: nested maps with anchored keys, lists of maps, scalars with operators. */
const pattern: fc.Arbitrary<JsonValue> = fc.letrec<{ node: JsonValue }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 3, arbitrary: policyScalar },
    { weight: 2, arbitrary: fc.array(fc.tuple(anchoredKey, tie('node')), { maxLength: 4 }).map(objectOf) },
    { weight: 1, arbitrary: fc.array(tie('node'), { maxLength: 3 }) },
  ),
})).node;

const podPattern: fc.Arbitrary<JsonValue> = fc.oneof(
  pattern,
  pattern.map((inner) => ({ spec: { containers: [objectOf([['image', inner]])] } })),
  pattern.map((inner) => ({ metadata: { labels: objectOf([['team', inner]]) } })),
  pattern.map((inner) => ({ data: objectOf([['__proto__', inner]]) })),
);

// --- conditions -----------------------------------------------------------------------------------

const OPERATORS = [
  'Equals',
  'NotEquals',
  'In',
  'AnyIn',
  'AllIn',
  'NotIn',
  'AnyNotIn',
  'AllNotIn',
  'GreaterThan',
  'GreaterThanOrEquals',
  'LessThan',
  'LessThanOrEquals',
  'DurationGreaterThan',
  'DurationLessThan',
  'Equal',
  'NotEqual',
  'Junk',
] as const;

const condition = loose({
  key: fc.oneof(variable, policyScalar, fc.array(policyScalar, { maxLength: 3 })),
  operator: fc.constantFrom(...OPERATORS),
  value: fc.oneof(policyScalar, fc.array(policyScalar, { maxLength: 3 }), variable),
  message: text,
});

const conditions: fc.Arbitrary<JsonValue> = fc.oneof(
  loose({ any: fc.array(condition, { maxLength: 3 }), all: fc.array(condition, { maxLength: 3 }) }),
  fc.array(condition, { maxLength: 3 }),
);

// --- match and exclude ----------------------------------------------------------------------------

const KINDS = [
  'Pod',
  'ConfigMap',
  'Deployment',
  'v1/Pod',
  'apps/v1/Deployment',
  '*',
  'Pod/exec',
  'Namespace',
  'Secret',
  'CronJob',
];

const selector = loose({
  matchLabels: dictionary(fc.oneof(text, fc.constantFrom('*', '?')), 3),
  matchExpressions: fc.array(
    loose({
      key: fc.oneof(key, fc.constant('team')),
      operator: fc.constantFrom('In', 'NotIn', 'Exists', 'DoesNotExist', 'Bogus'),
      values: fc.array(text, { maxLength: 3 }),
    }),
    { maxLength: 2 },
  ),
});

const resourceDescription = loose({
  kinds: fc.array(fc.oneof(fc.constantFrom(...KINDS), text), { minLength: 1, maxLength: 3 }),
  names: fc.array(fc.oneof(fc.constantFrom('web', 'cm*', '?'), text), { maxLength: 2 }),
  name: text,
  namespaces: fc.array(fc.oneof(fc.constantFrom('default', 'team-*', '*'), text), { maxLength: 2 }),
  operations: fc.array(fc.constantFrom('CREATE', 'UPDATE', 'DELETE', 'CONNECT', 'PATCH'), { maxLength: 3 }),
  annotations: dictionary(text, 2),
  selector,
  namespaceSelector: selector,
});

const resourceFilter = loose(
  {
    resources: resourceDescription,
    subjects: fc.array(
      loose({ kind: fc.constantFrom('User', 'Group', 'ServiceAccount'), name: text, namespace: text }),
      {
        maxLength: 2,
      },
    ),
    roles: fc.array(text, { maxLength: 2 }),
    clusterRoles: fc.array(text, { maxLength: 2 }),
  },
  ['subjects', 'roles', 'clusterRoles'],
);

const matchBlock: fc.Arbitrary<JsonValue> = fc.oneof(
  { weight: 4, arbitrary: loose({ any: fc.array(resourceFilter, { minLength: 1, maxLength: 2 }) }) },
  { weight: 2, arbitrary: loose({ all: fc.array(resourceFilter, { minLength: 1, maxLength: 2 }) }) },
  {
    weight: 1,
    arbitrary: loose({ resources: resourceDescription, subjects: fc.array(dictionary(text, 2), { maxLength: 1 }) }, [
      'subjects',
    ]),
  },
);

// --- rule bodies ----------------------------------------------------------------------------------

const contextEntry = loose({
  name: fc.oneof(fc.constantFrom('labels', 'cm', '__proto__', 'request', 'images'), key),
  variable: loose({ value: json, jmesPath: expression, default: json }),
});

const foreachEntry = (body: Record<string, fc.Arbitrary<JsonValue>>) =>
  loose({
    list: fc.oneof(
      fc.constantFrom(
        'request.object.spec.containers',
        'request.object.metadata.labels',
        'request.object.data',
        "items(request.object.data || `{}`, 'k', 'v')",
      ),
      expression,
    ),
    elementScope: fc.boolean(),
    preconditions: loose({ any: fc.array(condition, { maxLength: 2 }), all: fc.array(condition, { maxLength: 2 }) }),
    context: fc.array(contextEntry, { maxLength: 1 }),
    ...body,
  });

const validate: fc.Arbitrary<JsonValue> = fc.oneof(
  loose({ message: fc.oneof(text, variable), pattern: podPattern }),
  loose({ message: text, anyPattern: fc.array(podPattern, { minLength: 1, maxLength: 3 }) }),
  loose({ message: fc.oneof(text, variable), deny: loose({ conditions }) }),
  loose({
    message: text,
    foreach: fc.array(
      foreachEntry({ pattern, deny: loose({ conditions }), anyPattern: fc.array(pattern, { maxLength: 2 }) }),
      { minLength: 1, maxLength: 2 },
    ),
  }),
  loose({
    podSecurity: loose({
      level: fc.constantFrom('baseline', 'restricted', 'privileged', 'junk'),
      version: fc.constantFrom('latest', 'v1.29', 'v1.2', 'junk'),
      exclude: fc.array(
        loose({
          controlName: fc.constantFrom('Capabilities', 'Running as Non-root', 'Privileged Containers', 'junk'),
          images: fc.array(text, { maxLength: 2 }),
          restrictedField: text,
          values: fc.array(text, { maxLength: 2 }),
        }),
        { maxLength: 2 },
      ),
    }),
  }),
);

const JSON_POINTERS = [
  '/metadata/labels/team',
  '/metadata/labels/__proto__',
  '/metadata/labels/__proto__/polluted',
  '/data/__proto__',
  '/data/__proto__/polluted',
  '/__proto__/polluted',
  '/constructor/prototype/polluted',
  '/spec/containers/0/image',
  '/spec/containers/-1/image',
  '/spec/containers/-',
  '/metadata/annotations/a~1b',
  '',
  '/',
  'no-slash',
];

const json6902Operation = loose({
  op: fc.constantFrom('add', 'replace', 'remove', 'move', 'copy', 'test', 'junk'),
  path: fc.oneof(fc.constantFrom(...JSON_POINTERS), text),
  from: fc.constantFrom(...JSON_POINTERS),
  value: fc.oneof(json, variable),
});

/** patchesJson6902 is a YAML (or JSON) string in Kyverno; sometimes it is broken text. */
const patchesJson6902: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.array(json6902Operation, { maxLength: 3 }).map((ops) => JSON.stringify(ops)),
  fc.constantFrom('- op: add\n  path: /metadata/labels/__proto__\n  value: {polluted: yes}', '- op: [', 'op: add', ''),
  text,
);

const mutate: fc.Arbitrary<JsonValue> = fc.oneof(
  loose({ patchStrategicMerge: podPattern }),
  loose({ patchesJson6902 }),
  loose({
    foreach: fc.array(foreachEntry({ patchStrategicMerge: pattern, patchesJson6902 }), { minLength: 1, maxLength: 2 }),
  }),
);

const generate: fc.Arbitrary<JsonValue> = loose({
  apiVersion: fc.constantFrom('v1', 'networking.k8s.io/v1'),
  kind: fc.constantFrom('ConfigMap', 'NetworkPolicy', 'Secret'),
  name: fc.oneof(text, variable),
  namespace: fc.oneof(fc.constantFrom('default', '{{ request.object.metadata.namespace }}'), text),
  synchronize: fc.boolean(),
  data: fc.oneof(pattern, dictionary(json, 3)),
  clone: loose({ name: text, namespace: text }),
});

const rule = fc
  .tuple(
    loose({
      name: fc.oneof(fc.constantFrom('check', 'mutate-it', 'autogen-x', ''), text),
      match: matchBlock,
      exclude: matchBlock,
      context: fc.array(contextEntry, { maxLength: 2 }),
      preconditions: conditions,
    }),
    fc.oneof(
      { weight: 4, arbitrary: validate.map((v) => ['validate', v] as const) },
      { weight: 3, arbitrary: mutate.map((m) => ['mutate', m] as const) },
      { weight: 1, arbitrary: generate.map((g) => ['generate', g] as const) },
      { weight: 1, arbitrary: fc.constant(undefined) },
    ),
  )
  .map(([base, body]) => (body ? objectOf([...Object.entries(base), [body[0], body[1]]]) : base));

/** A policy with Kyverno's structure and random values in every field: mostly invalid. */
const anyPolicyDocument: fc.Arbitrary<JsonObject> = fc
  .tuple(
    fc.constantFrom('ClusterPolicy', 'ClusterPolicy', 'Policy'),
    loose(
      {
        validationFailureAction: fc.constantFrom('Enforce', 'Audit', 'enforce', 'audit', 'Bogus'),
        background: fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, { weight: 2, arbitrary: fc.boolean() }),
        failurePolicy: fc.constantFrom('Fail', 'Ignore'),
        applyRules: fc.constantFrom('One', 'All'),
        admission: fc.boolean(),
        webhookTimeoutSeconds: fc.oneof(
          { weight: 9, arbitrary: fc.integer({ min: 1, max: 30 }) },
          { weight: 1, arbitrary: fc.integer({ min: -5, max: 40 }) },
        ),
        validationFailureActionOverrides: fc.array(
          loose({ action: fc.constantFrom('Enforce', 'Audit'), namespaces: fc.array(text, { maxLength: 2 }) }),
          { maxLength: 1 },
        ),
      },
      ['admission', 'validationFailureActionOverrides'],
    ),
    fc.array(fc.tuple(rule, fc.boolean()), { minLength: 1, maxLength: 3 }),
    fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom('policy', 'p-1', '__proto__', 'a.b') },
      { weight: 1, arbitrary: text },
    ),
    fc.option(dictionary(text, 2), { nil: undefined }),
    fc.oneof(
      { weight: 20, arbitrary: fc.constantFrom('kyverno.io/v1', 'kyverno.io/v2beta1') },
      { weight: 1, arbitrary: anyJson },
    ),
  )
  .map(([kind, spec, ruleList, name, annotations, apiVersion]) => ({
    apiVersion,
    kind,
    metadata: {
      name,
      ...(kind === 'Policy' ? { namespace: 'default' } : {}),
      ...(annotations ? { annotations } : {}),
    },
    // Mostly distinct rule names, as Kyverno requires; sometimes the generated (maybe clashing) one.
    spec: objectOf([
      ...Object.entries(spec),
      [
        'rules',
        ruleList.map(([rule, rename], i) =>
          rename ? objectOf([...Object.entries(rule), ['name', `rule-${i}`]]) : rule,
        ),
      ],
    ]),
  })) as fc.Arbitrary<JsonObject>;

// --- policies most of which validate, so compile and evaluation see them -------------------------

/** Variables over what every rule may read (the request), with functions and operators. */
const requestExpression = fc.oneof(
  fc.constantFrom(...JMESPATH_PIECES.filter((piece) => piece.includes('request.') && !piece.includes('{{'))),
  fc.constantFrom(
    'request.object.metadata.labels.team',
    'request.object.data.__proto__',
    'request.object.spec.containers[0].image',
  ),
);
const requestVariable = requestExpression.map((e) => `{{ ${e} }}`);
const validScalar: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.constantFrom('?*', '*', '!nginx', '>1', '<=2Gi', '1-5', 'a | b', '!*:latest', 'true', '', '>10s', 'x*'),
  requestVariable,
  text.filter((value) => !value.includes('{{') && !value.includes('$(')),
  fc.integer(),
  fc.boolean(),
);
const validPattern: fc.Arbitrary<JsonValue> = fc.letrec<{ node: JsonValue }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 3, arbitrary: validScalar },
    {
      weight: 2,
      arbitrary: fc
        .array(
          fc.tuple(
            fc.constantFrom(
              'name',
              'labels',
              'image',
              '=(team)',
              '+(added)',
              'X(gone)',
              '^(containers)',
              '__proto__',
              'data',
              'spec',
            ),
            tie('node'),
          ),
          { maxLength: 3 },
        )
        .map(objectOf),
    },
    { weight: 1, arbitrary: fc.array(tie('node'), { minLength: 1, maxLength: 2 }) },
  ),
})).node;
const validCondition = fc.record({
  key: fc.oneof(requestVariable, validScalar),
  operator: fc.constantFrom(
    'Equals',
    'NotEquals',
    'AnyIn',
    'AllNotIn',
    'GreaterThan',
    'LessThanOrEquals',
    'DurationGreaterThan',
  ),
  value: fc.oneof(validScalar, fc.array(validScalar, { maxLength: 2 }), requestVariable),
});
const validConditions = fc.record({ any: fc.array(validCondition, { minLength: 1, maxLength: 2 }) });

const validRuleBody = fc.oneof(
  validPattern.map(
    (pattern) => ['validate', { message: 'checked', pattern: objectOf([['metadata', pattern]]) }] as const,
  ),
  validPattern.map(
    (pattern) =>
      [
        'validate',
        { message: 'checked {{ request.object.metadata.name }}', pattern: objectOf([['data', pattern]]) },
      ] as const,
  ),
  validConditions.map((conditions) => ['validate', { message: 'denied', deny: { conditions } }] as const),
  validPattern.map(
    (pattern) =>
      [
        'validate',
        {
          message: 'each',
          foreach: [{ list: 'request.object.spec.containers', pattern: objectOf([['image', pattern]]) }],
        },
      ] as const,
  ),
  fc
    .constantFrom('baseline', 'restricted')
    .map((level) => ['validate', { podSecurity: { level, version: 'latest' } }] as const),
  validPattern.map(
    (patch) => ['mutate', { patchStrategicMerge: objectOf([['metadata', objectOf([['labels', patch]])]]) }] as const,
  ),
  validPattern.map((patch) => ['mutate', { patchStrategicMerge: objectOf([['data', patch]]) }] as const),
  fc
    .array(json6902Operation, { minLength: 1, maxLength: 3 })
    .map((ops) => ['mutate', { patchesJson6902: JSON.stringify(ops) }] as const),
  validPattern.map(
    (patch) =>
      [
        'mutate',
        {
          foreach: [
            {
              list: 'request.object.spec.containers',
              patchStrategicMerge: {
                spec: {
                  containers: [
                    objectOf([
                      ['(name)', '{{ element.name }}'],
                      ['image', patch],
                    ]),
                  ],
                },
              },
            },
          ],
        },
      ] as const,
  ),
) as fc.Arbitrary<readonly [string, JsonValue]>;

const validRule = fc
  .record({
    kinds: fc.array(fc.constantFrom('Pod', 'ConfigMap', 'Deployment', 'Secret'), {
      minLength: 1,
      maxLength: 2,
    }),
    operations: fc.option(fc.subarray(['CREATE', 'UPDATE', 'DELETE', 'CONNECT'], { minLength: 1 }), { nil: undefined }),
    selector: fc.option(
      fc.record({
        matchLabels: fc.dictionary(fc.constantFrom('team', 'app', '__proto__'), fc.constantFrom('a', '*', 'b?'), {
          minKeys: 1,
        }),
      }),
      { nil: undefined },
    ),
    preconditions: fc.option(validConditions, { nil: undefined }),
    body: validRuleBody,
  })
  .map(({ kinds, operations, selector, preconditions, body }) => ({
    match: {
      any: [{ resources: { kinds, ...(operations ? { operations } : {}), ...(selector ? { selector } : {}) } }],
    },
    ...(preconditions ? { preconditions } : {}),
    [body[0]]: body[1],
  }));

const likelyValidPolicy: fc.Arbitrary<JsonObject> = fc
  .record({
    kind: fc.constantFrom('ClusterPolicy', 'Policy'),
    action: fc.constantFrom('Enforce', 'Audit'),
    failurePolicy: fc.constantFrom('Fail', 'Ignore'),
    applyRules: fc.constantFrom('One', 'All'),
    rules: fc.array(validRule, { minLength: 1, maxLength: 3 }),
  })
  .map(({ kind, action, failurePolicy, applyRules, rules }) => ({
    apiVersion: 'kyverno.io/v1',
    kind,
    metadata: { name: 'fuzz', ...(kind === 'Policy' ? { namespace: 'default' } : {}) },
    spec: {
      validationFailureAction: action,
      background: false,
      failurePolicy,
      applyRules,
      rules: rules.map((rule, i) => ({ name: `rule-${i}`, ...rule })),
    },
  }));

/** A policy with Kyverno's structure and random values: about half of them valid. */
export const policyDocument: fc.Arbitrary<JsonObject> = fc.oneof(
  { weight: 1, arbitrary: likelyValidPolicy },
  { weight: 1, arbitrary: anyPolicyDocument },
);

/** A policy document, or one with junk in a few fields, or something that is not a policy at all. */
export const policyOrJunk: fc.Arbitrary<JsonValue> = fc.oneof(
  { weight: 10, arbitrary: policyDocument },
  { weight: 6, arbitrary: withJunk(policyDocument) },
  { weight: 1, arbitrary: anyJson },
);
