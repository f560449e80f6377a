/** Reading a CustomResourceDefinition into the types it serves, and checking the parts we rely on. */
import { isObject, type JsonObject } from '@edict/foundation';
import type { StatusCause } from '../status';
import { STANDARD_VERBS, type PrinterColumn, type ResourceType } from './resource-type';
import { compareKubeVersions } from './version-priority';

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function required(field: string): StatusCause {
  return { reason: 'FieldValueRequired', message: 'Required value', field };
}

/** The validation failures kube would report for the fields this server needs; empty when valid. */
export function validateCrd(crd: JsonObject): StatusCause[] {
  const spec = isObject(crd.spec) ? crd.spec : {};
  const names = isObject(spec.names) ? spec.names : {};
  const causes: StatusCause[] = [];
  if (!text(spec.group)) causes.push(required('spec.group'));
  if (!text(names.plural)) causes.push(required('spec.names.plural'));
  if (!text(names.kind)) causes.push(required('spec.names.kind'));
  if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster') {
    causes.push({
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: ${JSON.stringify(spec.scope ?? '')}: supported values: "Cluster", "Namespaced"`,
      field: 'spec.scope',
    });
  }
  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isObject) : [];
  if (versions.length === 0) causes.push(required('spec.versions'));
  else if (versions.filter((v) => v.storage === true).length !== 1) {
    causes.push({
      reason: 'FieldValueInvalid',
      message: 'Invalid value: must have exactly one version marked as storage version',
      field: 'spec.versions',
    });
  }
  versions.forEach((version, index) => causes.push(...printerColumnCauses(version, `spec.versions[${index}]`)));
  const name = isObject(crd.metadata) ? crd.metadata.name : undefined;
  if (text(names.plural) && text(spec.group) && name !== `${names.plural as string}.${spec.group as string}`) {
    causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${JSON.stringify(name)}: must be spec.names.plural+"."+spec.group`,
      field: 'metadata.name',
    });
  }
  return causes;
}

const COLUMN_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];

/** kube's checks of `additionalPrinterColumns`: a name, one of the column types, a path starting with `.`. */
function printerColumnCauses(version: JsonObject, field: string): StatusCause[] {
  const columns = Array.isArray(version.additionalPrinterColumns) ? version.additionalPrinterColumns : [];
  return columns.flatMap((entry, index) => {
    const column = isObject(entry) ? entry : {};
    const at = `${field}.additionalPrinterColumns[${index}]`;
    const causes: StatusCause[] = [];
    if (!text(column.name)) causes.push(required(`${at}.name`));
    if (typeof column.type !== 'string' || !COLUMN_TYPES.includes(column.type)) {
      causes.push({
        reason: 'FieldValueNotSupported',
        message: `Unsupported value: ${JSON.stringify(column.type ?? '')}: supported values: ${COLUMN_TYPES.map((t) => `"${t}"`).join(', ')}`,
        field: `${at}.type`,
      });
    }
    const path = column.jsonPath;
    if (!text(path)) causes.push(required(`${at}.jsonPath`));
    else if (!(path as string).startsWith('.')) {
      causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${JSON.stringify(path)}: must be a simple json path starting with .`,
        field: `${at}.jsonPath`,
      });
    }
    return causes;
  });
}

function printerColumns(version: JsonObject): PrinterColumn[] {
  const columns = Array.isArray(version.additionalPrinterColumns) ? version.additionalPrinterColumns : [];
  return columns.filter(isObject).map((column) => ({
    name: String(column.name),
    type: String(column.type),
    format: text(column.format) ?? '',
    description: text(column.description) ?? '',
    priority: typeof column.priority === 'number' ? Math.trunc(column.priority) : 0,
    jsonPath: String(column.jsonPath),
  }));
}

/** The types a valid CRD serves: one per version with `served: true`. */
export function typesFromCrd(crd: JsonObject): ResourceType[] {
  const spec = crd.spec as JsonObject;
  const names = spec.names as JsonObject;
  const kind = names.kind as string;
  const strings = (value: unknown): string[] =>
    Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  return (spec.versions as JsonObject[])
    .filter((version) => isObject(version) && version.served !== false)
    .map((version) => ({
      group: spec.group as string,
      version: version.name as string,
      kind,
      listKind: text(names.listKind) ?? `${kind}List`,
      plural: names.plural as string,
      singular: text(names.singular) ?? kind.toLowerCase(),
      namespaced: spec.scope === 'Namespaced',
      shortNames: strings(names.shortNames),
      categories: strings(names.categories),
      verbs: STANDARD_VERBS,
      subresources: isObject(version.subresources) && isObject(version.subresources.status) ? ['status'] : [],
      tracksGeneration: true,
      builtin: false,
      selectableFields: Array.isArray(version.selectableFields)
        ? version.selectableFields.filter(isObject).map((field) => String(field.jsonPath ?? '').replace(/^\./, ''))
        : [],
      printerColumns: printerColumns(version),
      ...(version.deprecated === true ? { deprecationWarning: deprecationWarning(version, spec, kind) } : {}),
      ...(isObject(version.schema) && isObject(version.schema.openAPIV3Schema)
        ? { schema: version.schema.openAPIV3Schema }
        : {}),
    }));
}

/**
 * The warning kube answers a deprecated version's requests with: its `deprecationWarning`, else
 * apiextensions' default, naming the most preferred served version newer than it that is not
 * deprecated (`example.com/v1alpha1 Widget is deprecated; use example.com/v1 Widget`).
 */
function deprecationWarning(version: JsonObject, spec: JsonObject, kind: string): string {
  if (typeof version.deprecationWarning === 'string') return version.deprecationWarning;
  const name = String(version.name);
  const message = `${String(spec.group)}/${name} ${kind} is deprecated`;
  const newer = (spec.versions as JsonObject[])
    .filter((other) => isObject(other) && other.served !== false && other.deprecated !== true)
    .map((other) => String(other.name))
    .filter((other) => compareKubeVersions(other, name) < 0)
    .sort(compareKubeVersions);
  return newer.length === 0 ? message : `${message}; use ${String(spec.group)}/${newer[0]} ${kind}`;
}

/**
 * The status kube's CRD controllers would write once names are accepted and the type is served.
 * `storedVersions` keeps the versions the CRD's status already lists (the old status on an update,
 * the client's on a `/status` update) and adds the storage version, as kube-apiserver does.
 */
export function establishedStatus(crd: JsonObject, now: string): JsonObject {
  const spec = crd.spec as JsonObject;
  const storage = (spec.versions as JsonObject[]).find((v) => v.storage === true)?.name;
  const listed = isObject(crd.status) && Array.isArray(crd.status.storedVersions) ? crd.status.storedVersions : [];
  const storedVersions = listed.filter((v): v is string => typeof v === 'string');
  if (typeof storage === 'string' && !storedVersions.includes(storage)) storedVersions.push(storage);
  const condition = (type: string, reason: string, message: string): JsonObject => ({
    type,
    status: 'True',
    lastTransitionTime: now,
    reason,
    message,
  });
  return {
    conditions: [
      condition('NamesAccepted', 'NoConflicts', 'no conflicts found'),
      condition('Established', 'InitialNamesAccepted', 'the initial names have been accepted'),
    ],
    acceptedNames: { ...(spec.names as JsonObject) },
    storedVersions,
  };
}
