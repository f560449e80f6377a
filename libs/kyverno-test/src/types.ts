import type { Operation, RequestUser, RuleStatus } from '@edict/engine';
import type { JsonValue, KubeObject } from '@edict/foundation';

/** One `results[]` entry of a Kyverno CLI test file. */
export interface ExpectedResult {
  /** Position in `results[]`, for messages. */
  index: number;
  policy: string;
  /** Empty when the entry names no rule (then every rule of the policy is checked). */
  rule: string;
  /** Resource kind; may be empty. */
  kind: string;
  result: RuleStatus;
  /** `name` or `namespace/name` entries. */
  resources: string[];
  /** Deprecated: namespace applied to every name in `resources`. */
  namespace?: string;
  /** Admission operation this entry is evaluated with (newer Kyverno CLIs). */
  operation?: Operation;
  /**
   * The informational `isValidatingPolicy`, `isValidatingAdmissionPolicy`, ... flag set on the entry, if
   * any: Kyverno's CLI then checks every response of the policy whatever `rule` says.
   */
  celKind?: CelResultKind;
  /** Paths relative to the test file. */
  patchedResources?: string;
  generatedResource?: string;
  cloneSourceResource?: string;
}

/** The result flags of Kyverno's test format, by the policy kind each names. */
export const CEL_RESULT_FLAGS = {
  isValidatingPolicy: 'ValidatingPolicy',
  isValidatingAdmissionPolicy: 'ValidatingAdmissionPolicy',
  isMutatingPolicy: 'MutatingPolicy',
  isMutatingAdmissionPolicy: 'MutatingAdmissionPolicy',
  isGeneratingPolicy: 'GeneratingPolicy',
  isDeletingPolicy: 'DeletingPolicy',
  isImageValidatingPolicy: 'ImageValidatingPolicy',
} as const;

export type CelResultKind = (typeof CEL_RESULT_FLAGS)[keyof typeof CEL_RESULT_FLAGS];

/** A GlobalContextEntry mocked by a test (`globalContextEntries[]`): its data inline or from resource files. */
export interface GlobalContextMock {
  name: string;
  /** The entry's whole value: inline `data`, or the list of objects of `resources` / `resourceFiles`. */
  data: JsonValue;
  /** Paths of `resourceFiles`, relative to the test; their objects become `data` when the test is loaded. */
  resourceFiles: string[];
  /** A JMESPath over the data giving the root the projections read. */
  fieldPath?: string;
  /** Named projections: `path` is a JMESPath expression over the root; with any, only they are served. */
  projections: { name: string; path: string }[];
}

/** A mocked response for an `apiCall` context entry. */
export interface ApiCallMock {
  url: string;
  method?: string;
  statusCode: number;
  body: JsonValue;
}

/** A `cli.kyverno.io/v1alpha1` Test (or the older un-versioned form), paths still relative. */
export interface TestDefinition {
  /** Absolute path of the test file and its directory. */
  file: string;
  dir: string;
  name: string;
  policies: string[];
  resources: string[];
  targetResources: string[];
  exceptions: string[];
  clusterResources: string[];
  variables?: string;
  /** Values given inline in the test file (take precedence over `variables`). */
  values?: ValuesSpec;
  userinfo?: string;
  apiCallResponses: ApiCallMock[];
  /** A `cli.kyverno.io/v1alpha1` Context file (CEL `resource` library objects, image data). */
  context?: string;
  /** JSON payloads for ValidatingPolicies in JSON mode (`jsonPayloads`, or the older `jsonPayload`). */
  jsonPayloads: string[];
  /** Parameter objects of ValidatingAdmissionPolicies. */
  paramResources: string[];
  globalContextEntries: GlobalContextMock[];
  results: ExpectedResult[];
}

export interface RuleValues {
  name: string;
  values: Record<string, JsonValue>;
  foreachValues: Record<string, JsonValue[]>;
}

export interface PolicyValues {
  name: string;
  rules: RuleValues[];
  resources: { name: string; values: Record<string, JsonValue> }[];
}

export interface SubresourceMapping {
  parent: { group: string; version: string; kind: string; name: string };
  subresource: { group: string; version: string; kind: string; name: string };
}

/** A Kyverno CLI Values file (`cli.kyverno.io/v1alpha1` Values). */
export interface ValuesSpec {
  globalValues: Record<string, JsonValue>;
  policies: PolicyValues[];
  /** Namespace labels by namespace name (`namespaceSelector` and `namespaces`, the latter winning). */
  namespaceLabels: Record<string, Record<string, string>>;
  /** `apply --set key=value` values: over the global and per-resource values, as Kyverno's variables. */
  setValues?: Record<string, JsonValue>;
  /** The full Namespace objects of `namespaces`, by name (CEL policies' `namespaceObject`). */
  namespaces: Record<string, KubeObject>;
  subresources: SubresourceMapping[];
}

/** Everything a test refers to, read and parsed. */
export interface LoadedTest {
  definition: TestDefinition;
  policies: import('@edict/engine').Policy[];
  exceptions: import('@edict/engine').PolicyException[];
  resources: KubeObject[];
  targetResources: KubeObject[];
  clusterResources: KubeObject[];
  /** The `cloneSourceResource` objects of the results, which generate clone rules read. */
  cloneSources: KubeObject[];
  /** plural resource name -> kind, from CRDs named in cluster resource files. */
  crdPlurals: Record<string, { group: string; kind: string }>;
  values: ValuesSpec;
  user?: RequestUser;
  /** Kyverno's CEL policies and exceptions and Kubernetes' admission policies the test names. */
  cel: import('./cel-documents').CelDocuments;
  /** The `jsonPayloads`, each with its file. */
  jsonPayloads: JsonPayload[];
  /** Parameter objects of ValidatingAdmissionPolicies (`paramResources`). */
  params: KubeObject[];
  /** The Context file's objects and image data (empty without one). */
  context: import('./context-file').CliContext;
  /** The mocked GlobalContextEntries, `resourceFiles` read into `data`. */
  globalContext: GlobalContextMock[];
}

/** A non-Kubernetes input of ValidatingPolicies in JSON mode. */
export interface JsonPayload {
  /** The payload file, relative to the test. */
  file: string;
  value: JsonValue;
}
