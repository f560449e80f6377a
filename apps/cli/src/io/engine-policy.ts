/*
 * The engine's policy-file reading (YAML 1.1 documents with diagnostics, policy/exception schema checks).
 * TODO(integrator): export these from '@edict/engine' and import them from there; until then this is
 * the one place that reaches into the library's folders.
 */
export { parseDocuments, type SourceDocument } from '../../../../libs/engine/src/policy/documents';
export { loadPolicyDocuments } from '../../../../libs/engine/src/policy/load';
export { formatDiagnostic, isError, type Diagnostic } from '../../../../libs/engine/src/policy/diagnostics';
