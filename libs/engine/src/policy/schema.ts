import { isObject, type JsonObject, type JsonValue } from '../json';
import { CONDITION_OPERATORS, V1_ONLY_CONDITION_OPERATORS } from '../conditions/operators';
import type { PathSegment } from './diagnostics';
import { any, arr, bool, either, int, lazy, map, obj, str, validate, type Report, type Schema } from './schema-dsl';

/**
 * Kyverno's policy schemas: the CRD structure of ClusterPolicy/Policy (kyverno.io/v1, v2beta1) and
 * PolicyException (kyverno.io/v2, v2beta1, v2alpha1), with the cross-field rules Kyverno enforces in
 * code when a policy is admitted. Unknown fields are errors: Kyverno decodes policies strictly.
 */

export type PolicyApiVersion = 'v1' | 'v2beta1';

const FAILURE_ACTIONS = ['audit', 'enforce', 'Audit', 'Enforce'];
/** Deprecated `Equal`/`NotEqual`/`In`/`NotIn` are still accepted by kyverno.io/v1. */
const V1_OPERATORS = CONDITION_OPERATORS;
const V2_OPERATORS = CONDITION_OPERATORS.filter((op) => !V1_ONLY_CONDITION_OPERATORS.includes(op));
const PSS_CONTROLS = [
  'HostProcess',
  'Host Namespaces',
  'Privileged Containers',
  'Capabilities',
  'HostPath Volumes',
  'Host Ports',
  'AppArmor',
  'SELinux',
  '/proc Mount Type',
  'Seccomp',
  'Sysctls',
  'Volume Types',
  'Privilege Escalation',
  'Running as Non-root',
  'Running as Non-root user',
];

interface Flavour {
  version: PolicyApiVersion;
  namespaced: boolean;
}

// ---------------------------------------------------------------------------------------------
// Shared pieces

const labelSelector = obj(
  {
    matchLabels: map(str()),
    matchExpressions: arr(
      obj(
        { key: str(), operator: str({ enum: ['In', 'NotIn', 'Exists', 'DoesNotExist'] }), values: arr(str()) },
        {
          required: ['key', 'operator'],
          check: (e, path, report) => {
            const values = Array.isArray(e.values) ? e.values.length : 0;
            if ((e.operator === 'In' || e.operator === 'NotIn') && values === 0) {
              report([...path, 'values'], `must be specified when operator is ${e.operator}`);
            }
            if ((e.operator === 'Exists' || e.operator === 'DoesNotExist') && values > 0) {
              report([...path, 'values'], `may not be specified when operator is ${e.operator}`);
            }
          },
        },
      ),
    ),
  },
  {
    check: (selector, path, report) => {
      // Kyverno rejects a selector with no requirement (it would match everything by accident).
      const labels = isObject(selector.matchLabels) ? Object.keys(selector.matchLabels).length : 0;
      const expressions = Array.isArray(selector.matchExpressions) ? selector.matchExpressions.length : 0;
      if (labels === 0 && expressions === 0)
        report(path, 'selector has no requirements (matchLabels or matchExpressions)');
    },
  },
);

const subject = obj({ kind: str(), name: str(), namespace: str(), apiGroup: str() }, { required: ['kind', 'name'] });
const userInfoFields = { roles: arr(str()), clusterRoles: arr(str()), subjects: arr(subject) };

function resourceDescription(f: Flavour): Schema {
  const fields: Record<string, Schema> = {
    kinds: arr(str()),
    names: arr(str()),
    namespaces: arr(str()),
    annotations: map(str()),
    selector: labelSelector,
    namespaceSelector: labelSelector,
    operations: arr(str({ enum: ['CREATE', 'CONNECT', 'UPDATE', 'DELETE'] })),
  };
  if (f.version === 'v1') fields.name = str();
  return obj(fields, {
    check: (rd, path, report) => {
      if (typeof rd.name === 'string' && rd.name !== '' && Array.isArray(rd.names) && rd.names.length > 0) {
        report(path, 'name and names cannot be used together');
      }
      if (f.namespaced && Array.isArray(rd.namespaces) && rd.namespaces.length > 0) {
        report([...path, 'namespaces'], 'filtering on namespaces is not allowed in a namespaced Policy');
      }
    },
  });
}

function resourceFilter(f: Flavour): Schema {
  return obj({ ...userInfoFields, resources: resourceDescription(f) });
}

/**
 * `match` selects resources with `any`/`all` lists or (kyverno.io/v1 only) the legacy single
 * `resources` block. In a rule's match, kinds are mandatory; exclude and exceptions may omit them.
 */
function matchResources(f: Flavour, use: 'rule-match' | 'exclude' | 'exception-match'): Schema {
  const fields: Record<string, Schema> = { any: arr(resourceFilter(f)), all: arr(resourceFilter(f)) };
  if (f.version === 'v1') Object.assign(fields, userInfoFields, { resources: resourceDescription(f) });
  return obj(fields, {
    check: (m, path, report) => {
      const anyCount = Array.isArray(m.any) ? m.any.length : 0;
      const allCount = Array.isArray(m.all) ? m.all.length : 0;
      if (anyCount > 0 && allCount > 0) report(path, 'any and all cannot be used together');
      if ((anyCount > 0 || allCount > 0) && isObject(m.resources)) {
        report([...path, 'resources'], 'ignored: any/all take precedence over resources', 'warning');
      }
      if (use === 'exclude') return;
      if (anyCount === 0 && allCount === 0) {
        if (!isObject(m.resources) || Object.keys(m.resources).length === 0) {
          const hasUserInfo = ['roles', 'clusterRoles', 'subjects'].some((k) => Array.isArray(m[k]) && m[k].length > 0);
          if (!hasUserInfo) report(path, 'selects no resources: set any, all or resources');
          return;
        }
        if (use === 'rule-match') requireKindsIn(m.resources, [...path, 'resources'], report);
        return;
      }
      if (use !== 'rule-match') return;
      for (const key of ['any', 'all'] as const) {
        const filters = Array.isArray(m[key]) ? m[key] : [];
        filters.forEach((filter, i) => {
          if (isObject(filter) && isObject(filter.resources))
            requireKindsIn(filter.resources, [...path, key, i, 'resources'], report);
        });
      }
    },
  });
}

function requireKindsIn(resources: JsonObject, path: readonly PathSegment[], report: Report): void {
  if (!Array.isArray(resources.kinds) || resources.kinds.length === 0) {
    report([...path, 'kinds'], 'at least one kind is required when selecting resources');
  }
}

function condition(f: Flavour): Schema {
  return obj(
    {
      key: any(),
      operator: str({ enum: f.version === 'v1' ? V1_OPERATORS : V2_OPERATORS }),
      value: any(),
      message: str(),
    },
    {
      required: ['operator'],
      check: (c, path, report) => {
        if (c.key === undefined || c.key === null) report([...path, 'key'], 'required field is missing');
        if (c.value === undefined || c.value === null) report([...path, 'value'], 'required field is missing');
      },
    },
  );
}

function anyAllConditions(f: Flavour): Schema {
  return obj({ any: arr(condition(f)), all: arr(condition(f)) });
}

/** Rule preconditions and deny conditions: `{any, all}`, or in kyverno.io/v1 also a bare list. */
function conditions(f: Flavour): Schema {
  return f.version === 'v1' ? either(arr(condition(f)), anyAllConditions(f)) : anyAllConditions(f);
}

const contextSources = ['configMap', 'apiCall', 'imageRegistry', 'variable', 'globalReference'] as const;
const keyValue = (value: Schema) => obj({ key: str(), value }, { required: ['key', 'value'] });
const contextEntry = obj(
  {
    name: str(),
    configMap: obj({ name: str(), namespace: str() }, { required: ['name'] }),
    apiCall: obj({
      urlPath: str(),
      method: str({ enum: ['GET', 'POST'] }),
      data: arr(keyValue(any())),
      service: obj({ url: str(), headers: arr(keyValue(str())), caBundle: str() }, { required: ['url'] }),
      jmesPath: str(),
      default: any(),
    }),
    imageRegistry: obj(
      {
        reference: str(),
        jmesPath: str(),
        imageRegistryCredentials: obj({
          allowInsecureRegistry: bool(),
          providers: arr(str({ enum: ['default', 'amazon', 'azure', 'google', 'github'] })),
          secrets: arr(str()),
        }),
      },
      { required: ['reference'] },
    ),
    variable: obj({ value: any(), jmesPath: str(), default: any() }),
    globalReference: obj({ name: str(), jmesPath: str() }, { required: ['name'] }),
  },
  {
    required: ['name'],
    check: (entry, path, report) => {
      const used = contextSources.filter((source) => entry[source] !== undefined && entry[source] !== null);
      if (used.length === 0) report(path, `needs one of ${contextSources.join(', ')}`);
      else if (used.length > 1)
        report(path, `only one of ${contextSources.join(', ')} may be set, found ${used.join(', ')}`);
    },
  },
);
const context = arr(contextEntry);

const failureActionOverride = obj({
  action: str({ enum: FAILURE_ACTIONS }),
  namespaces: arr(str()),
  namespaceSelector: labelSelector,
});

const podSecurityExclude = obj(
  { controlName: str({ enum: PSS_CONTROLS }), images: arr(str()), restrictedField: str(), values: arr(str()) },
  { required: ['controlName'] },
);
const podSecurity = obj(
  {
    level: str({ enum: ['privileged', 'baseline', 'restricted'] }),
    version: str({ pattern: /^(v1\.\d+|latest)$/ }),
    exclude: arr(podSecurityExclude),
  },
  { required: ['level'] },
);

// ---------------------------------------------------------------------------------------------
// Rule bodies

function deny(f: Flavour): Schema {
  return obj({ conditions: conditions(f) });
}

function foreachValidation(f: Flavour): Schema {
  const self: Schema = obj({
    list: str(),
    elementScope: bool(),
    context,
    preconditions: anyAllConditions(f),
    pattern: any(),
    anyPattern: arr(any()),
    deny: deny(f),
    foreach: arr(lazy(() => self)),
  });
  return self;
}

/** Kyverno's `validate.cel`: a ValidatingAdmissionPolicy's validations, variables and parameters. */
const celValidation = obj({
  expressions: arr(
    obj({ expression: str(), message: str(), messageExpression: str(), reason: str() }, { required: ['expression'] }),
  ),
  paramKind: obj({ apiVersion: str(), kind: str() }),
  paramRef: obj({
    name: str(),
    namespace: str(),
    selector: labelSelector,
    parameterNotFoundAction: str({ enum: ['Allow', 'Deny'] }),
  }),
  auditAnnotations: arr(obj({ key: str(), valueExpression: str() }, { required: ['key', 'valueExpression'] })),
  variables: arr(obj({ name: str(), expression: str() }, { required: ['name', 'expression'] })),
});

const VALIDATION_KINDS = ['pattern', 'anyPattern', 'deny', 'foreach', 'podSecurity', 'cel', 'manifests', 'assert'];
function validation(f: Flavour): Schema {
  return obj(
    {
      failureAction: str({ enum: ['Audit', 'Enforce'] }),
      failureActionOverrides: arr(failureActionOverride),
      allowExistingViolations: bool(),
      message: str(),
      manifests: obj({}, { open: true }),
      foreach: arr(foreachValidation(f)),
      pattern: any(),
      anyPattern: arr(any()),
      deny: deny(f),
      podSecurity,
      cel: celValidation,
      assert: any(),
    },
    { check: exactlyOne(VALIDATION_KINDS, 'a validate rule') },
  );
}

function foreachMutation(f: Flavour): Schema {
  const self: Schema = obj({
    list: str(),
    order: str({ enum: ['Ascending', 'Descending'] }),
    context,
    preconditions: anyAllConditions(f),
    patchStrategicMerge: any(),
    patchesJson6902: str(),
    foreach: arr(lazy(() => self)),
  });
  return self;
}

function mutation(f: Flavour): Schema {
  const target = obj({
    apiVersion: str(),
    kind: str(),
    name: str(),
    namespace: str(),
    uid: str(),
    selector: labelSelector,
    context,
    preconditions: conditions(f),
  });
  return obj(
    {
      mutateExistingOnPolicyUpdate: bool(),
      targets: arr(target),
      patchStrategicMerge: any(),
      patchesJson6902: str(),
      foreach: arr(foreachMutation(f)),
    },
    {
      check: (m, path, report) => {
        const kinds = ['patchStrategicMerge', 'patchesJson6902', 'foreach'].filter((k) => present(m[k]));
        if (kinds.length === 0 && Object.keys(m).length > 0)
          report(path, 'a mutate rule needs one of patchStrategicMerge, patchesJson6902, foreach');
      },
    },
  );
}

const GENERATE_SOURCES = ['data', 'clone', 'cloneList', 'foreach'];
function generation(f: Flavour): Schema {
  const target = {
    apiVersion: str(),
    kind: str(),
    name: str(),
    namespace: str(),
    uid: str(),
    data: any(),
    clone: obj({ namespace: str(), name: str() }),
    cloneList: obj({ namespace: str(), kinds: arr(str()), selector: labelSelector }),
  };
  const foreachEntry = obj(
    { list: str(), context, preconditions: anyAllConditions(f), ...target },
    { check: (g, path, report) => requireTarget(g, path, report) },
  );
  return obj(
    {
      generateExisting: bool(),
      synchronize: bool(),
      orphanDownstreamOnPolicyDelete: bool(),
      ...target,
      foreach: arr(foreachEntry),
    },
    {
      check: (g, path, report) => {
        const used = GENERATE_SOURCES.filter((k) => present(g[k]));
        if (used.length > 1)
          return report(path, `only one of ${GENERATE_SOURCES.join(', ')} may be set, found ${used.join(', ')}`);
        if (!present(g.foreach)) requireTarget(g, path, report);
      },
    },
  );
}

/** Unless cloning a list, a generate target names its apiVersion, kind and name. */
function requireTarget(g: JsonObject, path: readonly PathSegment[], report: Report): void {
  const cloneList = isObject(g.cloneList) && Array.isArray(g.cloneList.kinds) && g.cloneList.kinds.length > 0;
  if (cloneList) return;
  for (const key of ['apiVersion', 'kind', 'name']) {
    if (typeof g[key] !== 'string' || g[key] === '') report([...path, key], 'required field is missing');
  }
}

const RULE_TYPES = ['mutate', 'validate', 'generate', 'verifyImages'];
function rule(f: Flavour): Schema {
  return obj(
    {
      name: str({ maxLength: 63 }),
      context,
      match: matchResources(f, 'rule-match'),
      exclude: matchResources(f, 'exclude'),
      imageExtractors: map(
        arr(obj({ path: str(), value: str(), name: str(), key: str(), jmesPath: str() }, { required: ['path'] })),
      ),
      preconditions: conditions(f),
      celPreconditions: arr(obj({ name: str(), expression: str() }, { required: ['name', 'expression'] })),
      mutate: mutation(f),
      validate: validation(f),
      generate: generation(f),
      verifyImages: arr(obj({}, { open: true })),
      skipBackgroundRequests: bool(),
      reportProperties: map(str()),
    },
    {
      required: ['name', 'match'],
      check: (r, path, report) => {
        const name = typeof r.name === 'string' ? r.name : '';
        const used = RULE_TYPES.filter((t) => nonEmpty(r[t]));
        if (used.length === 0) {
          report(
            path,
            `rule ${JSON.stringify(name)} defines no operation: one of ${RULE_TYPES.join(', ')} is required`,
          );
        } else if (used.length > 1) {
          report(
            path,
            `rule ${JSON.stringify(name)} defines ${used.join(' and ')}: only one of ${RULE_TYPES.join(', ')} is allowed per rule`,
          );
        }
        if (present(r.imageExtractors) && !used.includes('verifyImages')) {
          report([...path, 'imageExtractors'], 'only allowed in verifyImages rules');
        }
      },
    },
  );
}

function spec(f: Flavour): Schema {
  const timeout = int({ min: 1, max: 30 });
  return obj(
    {
      rules: arr(rule(f)),
      applyRules: str({ enum: ['All', 'One'] }),
      failurePolicy: str({ enum: ['Fail', 'Ignore'] }),
      validationFailureAction: str({ enum: FAILURE_ACTIONS }),
      validationFailureActionOverrides: arr(failureActionOverride),
      auditWarning: bool(),
      emitWarning: bool(),
      admission: bool(),
      background: bool(),
      schemaValidation: bool(),
      webhookTimeoutSeconds: timeout,
      mutateExistingOnPolicyUpdate: bool(),
      generateExistingOnPolicyUpdate: bool(),
      generateExisting: bool(),
      useServerSideApply: bool(),
      webhookConfiguration: obj({
        failurePolicy: str({ enum: ['Fail', 'Ignore'] }),
        timeoutSeconds: timeout,
        matchConditions: arr(obj({ name: str(), expression: str() }, { required: ['name', 'expression'] })),
      }),
    },
    {
      check: (s, path, report) => {
        const seen = new Set<string>();
        (Array.isArray(s.rules) ? s.rules : []).forEach((r, i) => {
          if (!isObject(r) || typeof r.name !== 'string') return;
          if (seen.has(r.name)) report([...path, 'rules', i, 'name'], `duplicate rule name ${JSON.stringify(r.name)}`);
          seen.add(r.name);
        });
        if (
          f.namespaced &&
          Array.isArray(s.validationFailureActionOverrides) &&
          s.validationFailureActionOverrides.length > 0
        ) {
          report([...path, 'validationFailureActionOverrides'], 'only supported in a ClusterPolicy');
        }
      },
    },
  );
}

const metadata = obj(
  { name: str(), namespace: str(), labels: map(str()), annotations: map(str()) },
  { open: true, required: ['name'] },
);

function policy(f: Flavour): Schema {
  return obj(
    { apiVersion: str(), kind: str(), metadata, spec: spec(f), status: any() },
    { required: ['metadata', 'spec'] },
  );
}

const exceptionMatch = matchResources({ version: 'v2beta1', namespaced: false }, 'exception-match');
const exceptionSchema = obj(
  {
    apiVersion: str(),
    kind: str(),
    metadata,
    spec: obj(
      {
        background: bool(),
        match: exceptionMatch,
        conditions: anyAllConditions({ version: 'v2beta1', namespaced: false }),
        exceptions: arr(obj({ policyName: str(), ruleNames: arr(str()) }, { required: ['policyName', 'ruleNames'] })),
        podSecurity: arr(podSecurityExclude),
      },
      { required: ['match', 'exceptions'] },
    ),
    status: any(),
  },
  { required: ['metadata', 'spec'] },
);

// ---------------------------------------------------------------------------------------------
// Entry points

const policySchemas = new Map<string, Schema>();
function policySchemaFor(version: PolicyApiVersion, namespaced: boolean): Schema {
  const key = `${version}/${namespaced}`;
  let schema = policySchemas.get(key);
  if (!schema) policySchemas.set(key, (schema = policy({ version, namespaced })));
  return schema;
}

/** Reports every schema problem of a ClusterPolicy (`namespaced` false) or Policy object. */
export function validatePolicySchema(
  value: JsonValue,
  version: PolicyApiVersion,
  namespaced: boolean,
  report: Report,
): void {
  validate(policySchemaFor(version, namespaced), value, [], report);
}

/** Reports every schema problem of a PolicyException object. */
export function validateExceptionSchema(value: JsonValue, report: Report): void {
  validate(exceptionSchema, value, [], report);
}

function exactlyOne(keys: readonly string[], what: string) {
  return (value: JsonObject, path: readonly PathSegment[], report: Report) => {
    if (Object.keys(value).length === 0) return; // reported once, as a rule without operation
    const used = keys.filter((k) => present(value[k]));
    if (used.length === 0) report(path, `${what} needs one of ${keys.join(', ')}`);
    else if (used.length > 1) report(path, `${what} may use only one of ${keys.join(', ')}, found ${used.join(', ')}`);
  };
}

function present(value: JsonValue | undefined): boolean {
  return value !== undefined && value !== null;
}

/** Kyverno treats an operation block that is empty (`validate: {}`) as absent. */
function nonEmpty(value: JsonValue | undefined): boolean {
  if (value === undefined || value === null) return false;
  if (Array.isArray(value)) return value.length > 0;
  if (isObject(value)) return Object.keys(value).length > 0;
  return true;
}
