import { isObject, type JsonObject, type JsonValue, type PathSegment } from '@edict/foundation';
import { CONDITION_OPERATORS, V1_ONLY_CONDITION_OPERATORS } from '../conditions/operators';
import {
  any,
  arr,
  bool,
  doc,
  either,
  int,
  lazy,
  map,
  obj,
  str,
  validate,
  type Report,
  type Schema,
} from './schema-dsl';

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
    matchLabels: map(str(), { description: 'Labels that must all be present with these values.' }),
    matchExpressions: arr(
      obj(
        {
          key: str({ description: 'The label key.' }),
          operator: str({
            enum: ['In', 'NotIn', 'Exists', 'DoesNotExist'],
            description: 'How the key relates to the values: In, NotIn, Exists or DoesNotExist.',
          }),
          values: arr(str(), { description: 'The values for In and NotIn; empty for Exists and DoesNotExist.' }),
        },
        {
          description: 'One label requirement.',
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
      { description: 'Label requirements, all of which must hold.' },
    ),
  },
  {
    description: 'A label query: matchLabels and matchExpressions are ANDed.',
    check: (selector, path, report) => {
      // Kyverno rejects a selector with no requirement (it would match everything by accident).
      const labels = isObject(selector.matchLabels) ? Object.keys(selector.matchLabels).length : 0;
      const expressions = Array.isArray(selector.matchExpressions) ? selector.matchExpressions.length : 0;
      if (labels === 0 && expressions === 0)
        report(path, 'selector has no requirements (matchLabels or matchExpressions)');
    },
  },
);

const subject = obj(
  {
    kind: str({ description: 'User, Group or ServiceAccount.' }),
    name: str({ description: 'The name of the user, group or service account.' }),
    namespace: str({ description: "The service account's namespace." }),
    apiGroup: str({ description: 'The API group of the subject (empty for ServiceAccount).' }),
  },
  { required: ['kind', 'name'], description: 'A user, group or service account sending the request.' },
);
const userInfoFields = {
  roles: arr(str(), { description: 'Namespaced roles (namespace:name) the requester must have one of.' }),
  clusterRoles: arr(str(), { description: 'Cluster roles the requester must have one of.' }),
  subjects: arr(subject, { description: 'Users, groups or service accounts the requester must be one of.' }),
};

function resourceDescription(f: Flavour): Schema {
  const fields: Record<string, Schema> = {
    kinds: arr(str(), {
      description: 'Kinds to select: Kind, group/version/Kind, or Kind/subresource; wildcards allowed.',
    }),
    names: arr(str(), { description: 'Resource names to select; wildcards (* and ?) allowed.' }),
    namespaces: arr(str(), { description: 'Namespaces to select; wildcards allowed.' }),
    annotations: map(str(), { description: 'Annotations the resource must carry; wildcards allowed in values.' }),
    selector: doc('Labels the resource must carry.', labelSelector),
    namespaceSelector: doc("Labels the resource's namespace must carry.", labelSelector),
    operations: arr(str({ enum: ['CREATE', 'CONNECT', 'UPDATE', 'DELETE'] }), {
      description: 'Admission operations to select: CREATE, CONNECT, UPDATE, DELETE.',
    }),
  };
  if (f.version === 'v1') fields.name = str({ description: 'Deprecated: use names. One resource name.' });
  return obj(fields, {
    description: 'Which resources: kinds, names, namespaces, labels, annotations and operations (ANDed).',
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
  return obj(
    { ...userInfoFields, resources: resourceDescription(f) },
    { description: 'Resources and requesters; all the fields given must match.' },
  );
}

/**
 * `match` selects resources with `any`/`all` lists or (kyverno.io/v1 only) the legacy single
 * `resources` block. In a rule's match, kinds are mandatory; exclude and exceptions may omit them.
 */
function matchResources(f: Flavour, use: 'rule-match' | 'exclude' | 'exception-match'): Schema {
  const fields: Record<string, Schema> = {
    any: arr(resourceFilter(f), { description: 'Filters of which at least one must match.' }),
    all: arr(resourceFilter(f), { description: 'Filters which must all match.' }),
  };
  if (f.version === 'v1') {
    Object.assign(fields, userInfoFields, {
      resources: doc('Deprecated: use any or all. The resources to select.', resourceDescription(f)),
    });
  }
  const description = {
    'rule-match': 'Which requests and resources the rule applies to: any or all of a list of filters.',
    exclude: 'Requests and resources the rule skips, even when they match.',
    'exception-match': 'The requests and resources the exception applies to.',
  }[use];
  return obj(fields, {
    description,
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
      key: any({ description: 'The value to test, often a JMESPath variable such as {{ request.operation }}.' }),
      operator: str({
        enum: f.version === 'v1' ? V1_OPERATORS : V2_OPERATORS,
        description: 'How key and value are compared (Equals, AnyIn, GreaterThan, DurationLessThan, ...).',
      }),
      value: any({ description: 'The value or list of values to compare the key with.' }),
      message: str({ description: 'Why the condition failed, shown when it does.' }),
    },
    {
      description: 'A comparison of a key with a value.',
      required: ['operator'],
      check: (c, path, report) => {
        if (c.key === undefined || c.key === null) report([...path, 'key'], 'required field is missing');
        if (c.value === undefined || c.value === null) report([...path, 'value'], 'required field is missing');
      },
    },
  );
}

function anyAllConditions(f: Flavour): Schema {
  return obj(
    {
      any: arr(condition(f), { description: 'Conditions of which at least one must hold.' }),
      all: arr(condition(f), { description: 'Conditions which must all hold.' }),
    },
    { description: 'Conditions grouped as any (OR) and all (AND).' },
  );
}

/** Rule preconditions and deny conditions: `{any, all}`, or in kyverno.io/v1 also a bare list. */
function conditions(f: Flavour): Schema {
  return f.version === 'v1'
    ? either(arr(condition(f)), anyAllConditions(f), {
        description: 'Conditions as {any, all} lists, or (deprecated) a plain list that must all hold.',
      })
    : anyAllConditions(f);
}

const contextSources = ['configMap', 'apiCall', 'imageRegistry', 'variable', 'globalReference'] as const;
const keyValue = (value: Schema, description: string) =>
  obj({ key: str({ description: 'The key.' }), value }, { required: ['key', 'value'], description });
const contextEntry = obj(
  {
    name: str({ description: 'The variable the data is stored under.' }),
    configMap: obj(
      {
        name: str({ description: 'The ConfigMap name.' }),
        namespace: str({ description: 'The ConfigMap namespace.' }),
      },
      { required: ['name'], description: "A ConfigMap's data." },
    ),
    apiCall: obj(
      {
        urlPath: str({ description: 'A Kubernetes API path, as kubectl get --raw takes it.' }),
        method: str({ enum: ['GET', 'POST'], default: 'GET', description: 'GET (the default) or POST.' }),
        data: arr(keyValue(any({ description: 'The value.' }), 'One entry of the POST body.'), {
          description: 'The POST body, as key/value entries.',
        }),
        service: obj(
          {
            url: str({ description: 'The service URL, e.g. https://{service}.{namespace}:{port}/{path}.' }),
            headers: arr(keyValue(str({ description: 'The header value.' }), 'One HTTP header.'), {
              description: 'HTTP headers sent with the request.',
            }),
            caBundle: str({ description: "PEM CA bundle to verify the service's certificate." }),
          },
          { required: ['url'], description: 'A JSON web service to call instead of the API server.' },
        ),
        jmesPath: str({ description: 'JMESPath applied to the response before it is stored.' }),
        default: any({ description: 'The value stored when the call fails.' }),
      },
      { description: 'An HTTP call to the Kubernetes API server or a service; the JSON answer is stored.' },
    ),
    imageRegistry: obj(
      {
        reference: str({ description: 'The image reference, e.g. ghcr.io/kyverno/kyverno:latest.' }),
        jmesPath: str({ description: 'JMESPath applied to the image data before it is stored.' }),
        imageRegistryCredentials: obj(
          {
            allowInsecureRegistry: bool({ description: 'Allow registries over plain HTTP or with bad TLS.' }),
            providers: arr(str({ enum: ['default', 'amazon', 'azure', 'google', 'github'] }), {
              description: 'Credential helpers to use: default, amazon, azure, google, github.',
            }),
            secrets: arr(str(), { description: 'Pull secrets (in the Kyverno namespace) to authenticate with.' }),
          },
          { description: 'How to authenticate to the registry.' },
        ),
      },
      { required: ['reference'], description: "An image's manifest and config from its OCI registry." },
    ),
    variable: obj(
      {
        value: any({ description: 'Any JSON value; may hold variables.' }),
        jmesPath: str({ description: 'JMESPath computing the variable (from value if given).' }),
        default: any({ description: 'The value when the JMESPath gives nothing.' }),
      },
      { description: 'A value or JMESPath expression defined in the policy.' },
    ),
    globalReference: obj(
      {
        name: str({ description: 'The GlobalContextEntry name.' }),
        jmesPath: str({ description: 'JMESPath applied to the cached data.' }),
      },
      { required: ['name'], description: 'Data cached by a GlobalContextEntry.' },
    ),
  },
  {
    description: 'A named piece of data: exactly one of configMap, apiCall, imageRegistry, variable, globalReference.',
    required: ['name'],
    oneOf: contextSources,
    check: (entry, path, report) => {
      const used = contextSources.filter((source) => entry[source] !== undefined && entry[source] !== null);
      if (used.length === 0) report(path, `needs one of ${contextSources.join(', ')}`);
      else if (used.length > 1)
        report(path, `only one of ${contextSources.join(', ')} may be set, found ${used.join(', ')}`);
    },
  },
);
const context = arr(contextEntry, { description: 'Data loaded for the rule, addressed as variables by name.' });

const failureActionOverride = obj(
  {
    action: str({ enum: FAILURE_ACTIONS, description: 'Audit or Enforce in these namespaces.' }),
    namespaces: arr(str(), { description: 'Namespaces the action applies in; wildcards allowed.' }),
    namespaceSelector: doc('Labels of the namespaces the action applies in.', labelSelector),
  },
  { description: 'A failure action for some namespaces.' },
);

const podSecurityExclude = obj(
  {
    controlName: str({ enum: PSS_CONTROLS, description: 'The Pod Security Standards control to exempt.' }),
    images: arr(str(), { description: 'Images the exemption applies to; wildcards allowed.' }),
    restrictedField: str({
      description: 'The field the exemption applies to, e.g. spec.containers[*].ports[*].hostPort.',
    }),
    values: arr(str(), { description: 'Values of restrictedField that are allowed.' }),
  },
  { required: ['controlName'], description: 'An exemption from one Pod Security Standards control.' },
);
const podSecurity = obj(
  {
    level: str({
      enum: ['privileged', 'baseline', 'restricted'],
      description: 'The Pod Security Standards level: privileged, baseline or restricted.',
    }),
    version: str({ pattern: /^(v1\.\d+|latest)$/, description: 'The standards version, e.g. v1.29 or latest.' }),
    exclude: arr(podSecurityExclude, { description: 'Controls, images or values exempted.' }),
  },
  { required: ['level'], description: 'Checks pods against a Pod Security Standards level.' },
);

// ---------------------------------------------------------------------------------------------
// Rule bodies

function deny(f: Flavour): Schema {
  return obj(
    {
      conditions: doc(
        'Conditions that fail the rule when they hold: {any, all} lists, or (deprecated) a plain list.',
        conditions(f),
      ),
    },
    { description: 'Fails the rule when its conditions hold.' },
  );
}

function foreachValidation(f: Flavour): Schema {
  const self: Schema = obj(
    {
      list: str({ description: 'JMESPath giving the elements to loop over, each available as {{ element }}.' }),
      elementScope: bool({
        description: 'Whether pattern and anyPattern apply to the element rather than the resource.',
      }),
      context,
      preconditions: doc('Conditions an element must meet to be checked.', anyAllConditions(f)),
      pattern: any({ description: 'A pattern each element must match.' }),
      anyPattern: arr(any(), { description: 'Patterns of which each element must match one.' }),
      deny: deny(f),
      foreach: arr(
        lazy(() => self),
        { description: 'A nested loop over a list inside each element (not typed in the CRD: it may recurse).' },
      ),
    },
    { description: 'A check applied to each element of a list.' },
  );
  return self;
}

/** Kyverno's `validate.cel`: a ValidatingAdmissionPolicy's validations, variables and parameters. */
const celValidation = obj(
  {
    generate: bool({
      description: 'Whether a ValidatingAdmissionPolicy and its binding are generated from this rule.',
    }),
    expressions: arr(
      obj(
        {
          expression: str({ description: 'A CEL expression that must evaluate to true.' }),
          message: str({ description: 'The message when it does not.' }),
          messageExpression: str({ description: 'A CEL expression giving the message.' }),
          reason: str({ description: 'The HTTP reason: Unauthorized, Forbidden, Invalid or RequestEntityTooLarge.' }),
        },
        { required: ['expression'], description: 'One CEL validation.' },
      ),
      { description: 'CEL expressions the resource must satisfy.' },
    ),
    paramKind: obj(
      {
        apiVersion: str({ description: 'The parameter resource apiVersion.' }),
        kind: str({ description: 'Its kind.' }),
      },
      { description: 'The kind of the parameter resources.' },
    ),
    paramRef: obj(
      {
        name: str({ description: 'The parameter resource name.' }),
        namespace: str({ description: 'Its namespace.' }),
        selector: doc('Labels of the parameter resources.', labelSelector),
        parameterNotFoundAction: str({ enum: ['Allow', 'Deny'], description: 'Allow or Deny when none is found.' }),
      },
      { description: 'Which parameter resources to use.' },
    ),
    auditAnnotations: arr(
      obj(
        {
          key: str({ description: 'The annotation key.' }),
          valueExpression: str({ description: 'A CEL expression giving its value.' }),
        },
        { required: ['key', 'valueExpression'], description: 'One audit annotation.' },
      ),
      { description: 'Audit annotations added to the audit event.' },
    ),
    variables: arr(
      obj(
        {
          name: str({ description: 'The variable name, used as variables.<name>.' }),
          expression: str({ description: 'The CEL expression computing it.' }),
        },
        { required: ['name', 'expression'], description: 'One CEL variable.' },
      ),
      { description: 'CEL variables available to the expressions.' },
    ),
  },
  { description: 'Validation with Common Expression Language, as in a ValidatingAdmissionPolicy.' },
);

const VALIDATION_KINDS = ['pattern', 'anyPattern', 'deny', 'foreach', 'podSecurity', 'cel', 'manifests', 'assert'];
function validation(f: Flavour): Schema {
  return obj(
    {
      failureAction: str({
        enum: ['Audit', 'Enforce'],
        description: 'Enforce refuses a failing request; Audit admits it and reports the failure.',
      }),
      failureActionOverrides: arr(failureActionOverride, { description: 'Failure actions for some namespaces.' }),
      allowExistingViolations: bool({
        default: true,
        description: 'Whether an update may keep a violation the resource already had.',
      }),
      message: str({ description: 'The message shown when the rule fails; may hold variables.' }),
      manifests: obj({}, { open: true, description: 'Verifies signatures of the resource manifest itself.' }),
      foreach: arr(foreachValidation(f), { description: 'Checks applied to each element of lists.' }),
      pattern: any({ description: 'An overlay pattern the resource must match.' }),
      anyPattern: arr(any(), { description: 'Patterns of which the resource must match at least one.' }),
      deny: deny(f),
      podSecurity,
      cel: celValidation,
      assert: any({ description: 'A kyverno-json assertion tree the resource must satisfy.' }),
    },
    {
      description:
        'Checks the resource: one of pattern, anyPattern, deny, foreach, podSecurity, cel, manifests, assert.',
      check: exactlyOne(VALIDATION_KINDS, 'a validate rule'),
    },
  );
}

function foreachMutation(f: Flavour): Schema {
  const self: Schema = obj(
    {
      list: str({ description: 'JMESPath giving the elements to loop over, each available as {{ element }}.' }),
      order: str({
        enum: ['Ascending', 'Descending'],
        description: 'The order elements are patched in: Ascending or Descending.',
      }),
      context,
      preconditions: doc('Conditions an element must meet to be patched.', anyAllConditions(f)),
      patchStrategicMerge: any({ description: 'A strategic merge patch applied for each element.' }),
      patchesJson6902: str({ description: 'RFC 6902 JSON patch operations (YAML) applied for each element.' }),
      foreach: arr(
        lazy(() => self),
        { description: 'A nested loop over a list inside each element (not typed in the CRD: it may recurse).' },
      ),
    },
    { description: 'A patch applied for each element of a list.' },
  );
  return self;
}

function mutation(f: Flavour): Schema {
  const target = obj(
    {
      apiVersion: str({ description: 'The target apiVersion.' }),
      kind: str({ description: 'The target kind.' }),
      name: str({ description: 'The target name; wildcards allowed.' }),
      namespace: str({ description: 'The target namespace.' }),
      uid: str({ description: 'The target uid.' }),
      selector: doc('Labels of the targets.', labelSelector),
      context,
      preconditions: doc('Conditions a target must meet to be patched.', conditions(f)),
    },
    { description: 'Existing resources to patch, in place of the resource in the request.' },
  );
  return obj(
    {
      mutateExistingOnPolicyUpdate: bool({
        description: 'Whether targets are patched when the policy is created or changed.',
      }),
      targets: arr(target, { description: 'Existing resources to patch (mutate-existing rules).' }),
      patchStrategicMerge: any({ description: 'A strategic merge patch applied to the resource.' }),
      patchesJson6902: str({ description: 'RFC 6902 JSON patch operations (YAML) applied to the resource.' }),
      foreach: arr(foreachMutation(f), { description: 'Patches applied to each element of lists.' }),
    },
    {
      description: 'Changes the resource, or existing targets: patchStrategicMerge, patchesJson6902 or foreach.',
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
    apiVersion: str({ description: 'The apiVersion of the resource to create.' }),
    kind: str({ description: 'Its kind.' }),
    name: str({ description: 'Its name; may hold variables.' }),
    namespace: str({ description: 'Its namespace (empty for cluster-scoped kinds).' }),
    uid: str({ description: 'Its uid.' }),
    data: any({ description: 'The resource to create, written in the policy.' }),
    clone: obj(
      {
        namespace: str({ description: 'The namespace of the resource to copy.' }),
        name: str({ description: 'Its name.' }),
      },
      { description: 'An existing resource to copy.' },
    ),
    cloneList: obj(
      {
        namespace: str({ description: 'The namespace of the resources to copy.' }),
        kinds: arr(str(), { description: 'Their kinds, as apiVersion/Kind.' }),
        selector: doc('Their labels.', labelSelector),
      },
      { description: 'Existing resources to copy, selected by kind and labels.' },
    ),
  };
  const foreachEntry = obj(
    {
      list: str({ description: 'JMESPath giving the elements to loop over, each available as {{ element }}.' }),
      context,
      preconditions: doc('Conditions an element must meet.', anyAllConditions(f)),
      ...target,
    },
    {
      description: 'A resource generated for each element of a list.',
      check: (g, path, report) => requireTarget(g, path, report),
    },
  );
  return obj(
    {
      generateExisting: bool({
        description: 'Whether resources are generated for triggers existing when the policy is created.',
      }),
      synchronize: bool({ description: 'Keep the generated resource in step with the policy or the cloned source.' }),
      orphanDownstreamOnPolicyDelete: bool({ description: 'Keep generated resources when the policy is deleted.' }),
      ...target,
      foreach: arr(foreachEntry, { description: 'Resources generated for each element of lists.' }),
    },
    {
      description:
        'Creates resources: from data, by cloning one (clone) or several (cloneList), or per element (foreach).',
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
      name: str({ maxLength: 63, description: 'The rule name, unique in the policy.' }),
      context,
      match: matchResources(f, 'rule-match'),
      exclude: matchResources(f, 'exclude'),
      imageExtractors: map(
        arr(
          obj(
            {
              path: str({ description: 'Slash-separated path to the image field; * expands lists and maps.' }),
              value: str({ description: 'The field under path that holds the image.' }),
              name: str({ description: 'The name images are listed under (images.<name>).' }),
              key: str({ description: 'The field under path that identifies each image.' }),
              jmesPath: str({ description: 'JMESPath applied to the value found.' }),
            },
            { required: ['path'], description: 'Where one kind keeps images.' },
          ),
        ),
        { description: 'Where images are found in custom kinds (verifyImages rules only), per kind.' },
      ),
      preconditions: doc('Conditions the request must meet for the rule to apply.', conditions(f)),
      celPreconditions: arr(
        obj(
          {
            name: str({ description: 'The condition name.' }),
            expression: str({ description: 'A CEL expression that must be true.' }),
          },
          { required: ['name', 'expression'], description: 'One CEL precondition.' },
        ),
        { description: 'CEL conditions the request must meet (with validate.cel).' },
      ),
      mutate: mutation(f),
      validate: validation(f),
      generate: generation(f),
      verifyImages: arr(obj({}, { open: true, description: 'One image verification.' }), {
        description: 'Verifies image signatures and attestations, and can pin images to digests.',
      }),
      skipBackgroundRequests: bool({
        default: true,
        description: "Whether the background controller's own requests are skipped.",
      }),
      reportProperties: map(str(), { description: "Extra properties added to this rule's report results." }),
    },
    {
      description:
        'A check or change applied to the resources it matches: one of validate, mutate, generate, verifyImages.',
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
  const timeout = (description: string) => int({ min: 1, max: 30, description });
  return obj(
    {
      rules: arr(rule(f), { description: 'The rules: each validates, mutates, generates or verifies images.' }),
      applyRules: str({
        enum: ['All', 'One'],
        description: 'All (the default) applies every matching rule; One stops after the first that applies.',
      }),
      failurePolicy: str({
        enum: ['Fail', 'Ignore'],
        description: 'Deprecated: use webhookConfiguration.failurePolicy.',
      }),
      validationFailureAction: str({
        enum: FAILURE_ACTIONS,
        default: 'Audit',
        description: 'Deprecated: use validate.failureAction. Audit or Enforce for the validate rules.',
      }),
      validationFailureActionOverrides: arr(failureActionOverride, {
        description: 'Deprecated: use validate.failureActionOverrides. Failure actions per namespace.',
      }),
      auditWarning: bool({ description: 'Deprecated: use emitWarning.' }),
      emitWarning: bool({
        default: false,
        description: 'Return warnings to the client for audit failures and mutations.',
      }),
      admission: bool({ default: true, description: 'Whether the rules apply to admission requests.' }),
      background: bool({
        default: true,
        description: 'Whether the rules apply to existing resources in background scans.',
      }),
      schemaValidation: bool({ description: 'Deprecated; ignored.' }),
      webhookTimeoutSeconds: timeout('Deprecated: use webhookConfiguration.timeoutSeconds.'),
      mutateExistingOnPolicyUpdate: bool({ description: 'Deprecated: use mutate.mutateExistingOnPolicyUpdate.' }),
      generateExistingOnPolicyUpdate: bool({ description: 'Deprecated: use generate.generateExisting.' }),
      generateExisting: bool({ description: 'Deprecated: use generate.generateExisting.' }),
      useServerSideApply: bool({ description: 'Generate resources with server-side apply.' }),
      webhookConfiguration: obj(
        {
          failurePolicy: str({
            enum: ['Fail', 'Ignore'],
            description: 'Fail (the default) or Ignore when the policy cannot be applied in time.',
          }),
          timeoutSeconds: timeout('Seconds the webhook may take for this policy (1 to 30; 10 when unset).'),
          matchConditions: arr(
            obj(
              {
                name: str({ description: 'The condition name.' }),
                expression: str({ description: 'A CEL expression on the request; false skips the webhook call.' }),
              },
              { required: ['name', 'expression'], description: 'One match condition.' },
            ),
            { description: 'CEL conditions a request must meet to be sent to the webhook.' },
          ),
        },
        { description: 'Settings of the admission webhook that runs this policy.' },
      ),
    },
    {
      description: 'The rules and how they run.',
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

/** What the policy controllers record: conditions (Ready), rule counts, autogen rules; written by Edict only. */
const policyStatus = obj(
  {},
  { open: true, description: 'Status written by the controllers: Ready condition, rule counts.' },
);

/** The spec of a ClusterPolicy (`namespaced` false) or Policy, as its CRD and the policy checks read it. */
export function policySpecSchema(version: PolicyApiVersion, namespaced: boolean): Schema {
  return (policySchemaFor(version, namespaced) as Extract<Schema, { type: 'object' }>).fields.spec!;
}

function policy(f: Flavour): Schema {
  return obj(
    { apiVersion: str(), kind: str(), metadata, spec: spec(f), status: policyStatus },
    { required: ['metadata', 'spec'] },
  );
}

/** Pieces other kinds share with policies (cleanup policies match and load context as rules do). */
export const policySchemaParts = {
  labelSelector,
  context,
  /** A match or exclude block with any/all filters (kyverno.io/v2beta1's MatchResources). */
  matchResources: (use: 'match' | 'exclude') =>
    matchResources({ version: 'v2beta1', namespaced: false }, use === 'match' ? 'exception-match' : 'exclude'),
  anyAllConditions: () => anyAllConditions({ version: 'v2beta1', namespaced: false }),
};

const exceptionFlavour: Flavour = { version: 'v2beta1', namespaced: false };
/** The spec of a PolicyException (kyverno.io/v2 and v2beta1 alike). */
export const exceptionSpecSchema = obj(
  {
    background: bool({ description: 'Whether the exception applies in background scans too.' }),
    match: matchResources(exceptionFlavour, 'exception-match'),
    conditions: doc('Conditions the request must meet for the exception to apply.', anyAllConditions(exceptionFlavour)),
    exceptions: arr(
      obj(
        {
          policyName: str({ description: 'The policy name; Namespace/name for a Policy; wildcards allowed.' }),
          ruleNames: arr(str(), { description: 'The rule names; wildcards allowed.' }),
        },
        { required: ['policyName', 'ruleNames'], description: 'A policy and the rules of it that are waived.' },
      ),
      { description: 'The policies and rules the exception waives.' },
    ),
    podSecurity: arr(podSecurityExclude, {
      description: 'Pod Security Standards controls waived (podSecurity rules).',
    }),
  },
  { required: ['match', 'exceptions'], description: 'Which requests and resources are exempted from which rules.' },
);
const exceptionSchema = obj(
  { apiVersion: str(), kind: str(), metadata, spec: exceptionSpecSchema, status: any() },
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
