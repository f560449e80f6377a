/**
 * The documents `kyverno create` writes, rendered as Kyverno's Go templates render them
 * (`cmd/cli/kubectl-kyverno/commands/create/templates`): the same lines, field order, blank lines and
 * comments. Values are written as given, unquoted, as the templates write them.
 */

export interface ResourceFilter {
  kinds: string[];
  names: string[];
  namespaces: string[];
  operations: string[];
}

export interface ExceptionOptions {
  name: string;
  namespace: string;
  background: boolean;
  exceptions: { policyName: string; ruleNames: string[] }[];
  any: ResourceFilter[];
  all: ResourceFilter[];
}

const items = (values: readonly string[], indent: string) => values.map((value) => `\n${indent}- ${value}`).join('');

function filters(key: 'any' | 'all', list: readonly ResourceFilter[]): string {
  if (list.length === 0) return '';
  const field = (name: string, values: readonly string[]) =>
    values.length === 0 ? '' : `\n        ${name}:${items(values, '          ')}`;
  return (
    `\n    ${key}:` +
    list
      .map(
        (filter) =>
          '\n      -' +
          field('kinds', filter.kinds) +
          field('names', filter.names) +
          field('namespaces', filter.namespaces) +
          field('operations', filter.operations),
      )
      .join('')
  );
}

/** A `kyverno.io/v2beta1` PolicyException (namespace `default` when none is given). */
export function renderException(options: ExceptionOptions): string {
  const exceptions =
    options.exceptions.length === 0
      ? ''
      : '\n  exceptions:' +
        options.exceptions
          .map(
            (exception) =>
              `\n    - policyName: ${exception.policyName}\n      ruleNames:${items(exception.ruleNames, '        ')}`,
          )
          .join('');
  return (
    'apiVersion: kyverno.io/v2beta1\nkind: PolicyException\nmetadata:\n' +
    `  name: ${options.name}\n  namespace: ${options.namespace || 'default'}\n` +
    `spec:\n  background: ${options.background}\n  match:` +
    filters('any', options.any) +
    filters('all', options.all) +
    exceptions +
    '\n'
  );
}

export interface MetricsConfigOptions {
  name: string;
  namespace: string;
  include: string[];
  exclude: string[];
}

/** Go's encoding/json escapes these in strings; JSON.stringify does not. */
function goJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(/[<>&\u2028\u2029]/g, (c) => {
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

/** The metrics ConfigMap: `namespaces` holds the include/exclude lists as indented JSON (empty lists left out). */
export function renderMetricsConfig(options: MetricsConfigOptions): string {
  const namespaces = {
    ...(options.include.length > 0 ? { include: options.include } : {}),
    ...(options.exclude.length > 0 ? { exclude: options.exclude } : {}),
  };
  const json = goJson(namespaces)
    .split('\n')
    .map((line) => `\n    ${line}`)
    .join('');
  return (
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${options.name}\n  namespace: ${options.namespace}\n` +
    `data:\n  namespaces: |${json}\n`
  );
}

export interface TestResultOptions {
  policy: string;
  rule: string;
  resource: string;
  namespace: string;
  kind: string;
  patchedResource: string;
  result: 'pass' | 'fail' | 'skip';
}

export interface TestOptions {
  name: string;
  policies: string[];
  resources: string[];
  values: string;
  results: TestResultOptions[];
}

/** A `cli.kyverno.io/v1alpha1` Test. */
export function renderTest(options: TestOptions): string {
  const results = options.results
    .map(
      (result) =>
        `\n  - policy: ${result.policy}\n    rule: ${result.rule}\n    resources:\n      - ${result.resource}` +
        `\n    namespace: ${result.namespace}\n    kind: ${result.kind}` +
        (result.patchedResource ? `\n    patchedResource: ${result.patchedResource}` : '') +
        `\n    result: ${result.result}`,
    )
    .join('');
  return (
    `apiVersion: cli.kyverno.io/v1alpha1\nkind: Test\nmetadata:\n  name: ${options.name}\n` +
    `policies:${items(options.policies, '  ')}\nresources:${items(options.resources, '  ')}` +
    (options.values ? `\nvariables: ${options.values}` : '') +
    `\nresults:${results}\n`
  );
}

export interface UserInfoOptions {
  username: string;
  roles: string[];
  clusterRoles: string[];
  groups: string[];
}

/** A user info file: roles, cluster roles, and the admission user's name and groups. */
export function renderUserInfo(options: UserInfoOptions): string {
  return (
    `# list of roles\nroles:${items(options.roles, '  ')}\n\n` +
    `# list of cluster roles\nclusterRoles:${items(options.clusterRoles, '  ')}\n\n` +
    `userInfo:\n  # user name\n  username: ${options.username}\n\n` +
    `  # list of groups\n  groups:${items(options.groups, '    ')}\n`
  );
}

export interface NamedValues {
  name: string;
  values: Record<string, string>;
}

export interface ValuesPolicy {
  name: string;
  rules: NamedValues[];
  resources: NamedValues[];
}

export interface ValuesOptions {
  policies: ValuesPolicy[];
  globalValues: Record<string, string>;
  namespaceSelectors: { name: string; labels: Record<string, string> }[];
}

/** Go templates range over maps in key order. */
const sortedEntries = (map: Record<string, string>) =>
  Object.entries(map).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

const mapLines = (map: Record<string, string>, indent: string) =>
  sortedEntries(map)
    .map(([key, value]) => `\n${indent}${key}: ${value}`)
    .join('');

/** A values file: per-policy rule and resource values, global values and namespace selectors. */
export function renderValues(options: ValuesOptions): string {
  const named = (key: string, list: readonly NamedValues[]) =>
    list.length === 0
      ? ''
      : `\n    ${key}:` +
        list
          .map((item) => `\n      - name: ${item.name}\n        values:${mapLines(item.values, '          ')}`)
          .join('');
  const policies = options.policies
    .map((policy) => `\n  - name: ${policy.name}` + named('rules', policy.rules) + named('resources', policy.resources))
    .join('');
  const selectors = options.namespaceSelectors
    .map((selector) => `\n  - name: ${selector.name}\n    labels:${mapLines(selector.labels, '      ')}`)
    .join('');
  return (
    `# list of policy values\npolicies:${policies}\n\n` +
    `# list of global values\nglobalValues:${mapLines(options.globalValues, '  ')}\n\n` +
    `# list of namespace selectors\nnamespaceSelector:${selectors}\n`
  );
}
