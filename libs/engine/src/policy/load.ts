import {
  isObject,
  type JsonObject,
  formatPath,
  isError,
  type Diagnostic,
  type PathSegment,
  fieldLine,
  parseDocuments,
  type SourceDocument,
} from '@edict/foundation';
import { validateExceptionSchema, validatePolicySchema, type PolicyApiVersion } from './schema';
import type { Policy, PolicyException } from './types';

export interface LoadedPolicies {
  policies: Policy[];
  exceptions: PolicyException[];
  /** Objects that are neither policies nor exceptions (resources, test files, ...). */
  others: SourceDocument[];
  /** Errors (the object was skipped) and warnings (it was kept); see `isError`. */
  errors: Diagnostic[];
}

const POLICY_VERSIONS: Record<string, PolicyApiVersion> = { 'kyverno.io/v1': 'v1', 'kyverno.io/v2beta1': 'v2beta1' };
const EXCEPTION_VERSIONS = new Set(['kyverno.io/v2', 'kyverno.io/v2beta1', 'kyverno.io/v2alpha1']);

/** Reads a policy file: valid policies and exceptions are kept, invalid ones reported and skipped. */
export function loadPolicyDocuments(text: string, file: string): LoadedPolicies {
  const parsed = parseDocuments(text, file);
  const loaded = classifyDocuments(parsed.documents);
  return { ...loaded, errors: [...parsed.errors, ...loaded.errors] };
}

/** Same as {@link loadPolicyDocuments} for documents already parsed. */
export function classifyDocuments(documents: readonly SourceDocument[]): LoadedPolicies {
  const out: LoadedPolicies = { policies: [], exceptions: [], others: [], errors: [] };
  for (const doc of documents) {
    const value = doc.value;
    if (!isObject(value)) {
      out.errors.push({ ...where(doc), line: doc.line, message: 'expected a Kubernetes object (a mapping)' });
      continue;
    }
    const kind = value.kind;
    const apiVersion = typeof value.apiVersion === 'string' ? value.apiVersion : '';
    const isKyverno = apiVersion.startsWith('kyverno.io/');
    if (isKyverno && (kind === 'ClusterPolicy' || kind === 'Policy')) {
      const version = POLICY_VERSIONS[apiVersion];
      if (!version) {
        out.errors.push({
          ...where(doc, value),
          line: fieldLine(doc, 'apiVersion') ?? doc.line,
          path: 'apiVersion',
          message: `unsupported apiVersion ${JSON.stringify(apiVersion)} for ${kind}: use kyverno.io/v1 or kyverno.io/v2beta1`,
        });
        continue;
      }
      const problems = check(doc, value, (report) => validatePolicySchema(value, version, kind === 'Policy', report));
      out.errors.push(...problems);
      if (!problems.some(isError)) out.policies.push(normalizePolicy(value) as unknown as Policy);
    } else if (isKyverno && kind === 'PolicyException') {
      if (!EXCEPTION_VERSIONS.has(apiVersion)) {
        out.errors.push({
          ...where(doc, value),
          line: fieldLine(doc, 'apiVersion') ?? doc.line,
          path: 'apiVersion',
          message: `unsupported apiVersion ${JSON.stringify(apiVersion)} for PolicyException: use kyverno.io/v2`,
        });
        continue;
      }
      const problems = check(doc, value, (report) => validateExceptionSchema(value, report));
      out.errors.push(...problems);
      if (!problems.some(isError)) out.exceptions.push(value as unknown as PolicyException);
    } else {
      out.others.push(doc);
    }
  }
  return out;
}

type Reporter = (path: readonly PathSegment[], message: string, severity?: 'error' | 'warning') => void;

function check(doc: SourceDocument, value: JsonObject, run: (report: Reporter) => void): Diagnostic[] {
  const problems: Diagnostic[] = [];
  run((path, message, severity) => {
    problems.push({
      ...where(doc, value),
      line: fieldLine(doc, path) ?? doc.line,
      path: formatPath(path),
      message,
      ...(severity === 'warning' ? { severity } : {}),
    });
  });
  return problems;
}

function where(doc: SourceDocument, value?: JsonObject): Diagnostic {
  const name =
    value && isObject(value.metadata) && typeof value.metadata.name === 'string' ? value.metadata.name : undefined;
  const object = value && typeof value.kind === 'string' ? `${value.kind}${name ? `/${name}` : ''}` : undefined;
  return {
    file: doc.file,
    document: doc.index,
    ...(doc.item !== undefined ? { item: doc.item } : {}),
    ...(object ? { object } : {}),
    message: '',
  };
}

/** As Kyverno's loader: a Policy without namespace lives in `default`; a ClusterPolicy has none. */
function normalizePolicy(value: JsonObject): JsonObject {
  const metadata = { ...(value.metadata as JsonObject) };
  if (value.kind === 'Policy') {
    if (typeof metadata.namespace !== 'string' || metadata.namespace === '') metadata.namespace = 'default';
  } else {
    delete metadata.namespace;
  }
  return { ...value, metadata };
}
