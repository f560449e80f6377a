import { resolve } from 'node:path';
import { type Policy, type PolicyException, classifyDocuments, validatePolicy } from '@edict/engine';
import { type Diagnostic, type SourceDocument, fieldLine, isError, parseDocuments } from '@edict/foundation';
import { addCelDocument, type CelDocuments, emptyCelDocuments } from './cel-documents';
import { readText } from './io/files';
import { throwFirstError } from './io/yaml-documents';
import { expandPath } from './io/input-paths';

/** A policy that reads fine but that Kyverno's policy validation rejects (what its webhook would deny). */
export interface InvalidPolicy {
  policy: Policy;
  /** The validation errors, located by file, document and line. */
  errors: Diagnostic[];
}

export interface PolicyFiles {
  /** Policies that pass Kyverno's policy validation. */
  policies: Policy[];
  /** Policies Kyverno's CLI would leave out: `apply` counts each as an error, `test` skips them. */
  invalid: InvalidPolicy[];
  exceptions: PolicyException[];
  /** Kyverno's CEL policies and exceptions, Kubernetes' admission policies and bindings, as read. */
  cel: CelDocuments;
}

/**
 * Reads Kyverno policies and exceptions from files or folders with the engine's loader. A document
 * that is not a readable policy or exception is an error naming file, document and field (Kyverno
 * would skip it and leave its results unexplained). Readable policies then go through the policy
 * validation Kyverno's CLI runs before applying them; those it rejects are set apart in `invalid`.
 * Kyverno's CEL policies and Kubernetes' admission policies are collected as read; other kinds in
 * these files are ignored. Hidden files and folders met while walking a folder
 * (`.chainsaw-test/`, `.kyverno-test/`) are left out, as Kyverno's policy loader leaves them out.
 */
export function loadPolicyFiles(paths: readonly string[], baseDir: string): PolicyFiles {
  const loaded: PolicyFiles = { policies: [], invalid: [], exceptions: [], cel: emptyCelDocuments() };
  for (const path of paths) {
    for (const file of expandPath(resolve(baseDir, path))) {
      const parsed = parseDocuments(readText(file), file);
      // One document at a time, so each policy keeps the document its errors are located in.
      const perDocument = parsed.documents.map((doc) => ({ doc, result: classifyDocuments([doc]) }));
      throwFirstError(file, [...parsed.errors, ...perDocument.flatMap(({ result }) => result.errors)]);
      for (const { doc, result } of perDocument) {
        for (const policy of result.policies) {
          const errors = validatePolicy(policy, { file })
            .filter(isError)
            .map((error) => located(error, doc));
          if (errors.length > 0) loaded.invalid.push({ policy, errors });
          else loaded.policies.push(policy);
        }
        loaded.exceptions.push(...result.exceptions);
        addCelDocument(loaded.cel, doc.value);
      }
    }
  }
  return loaded;
}

/** Adds the document and the line of the offending field (or of the document) to a validation error. */
function located(diagnostic: Diagnostic, doc: SourceDocument): Diagnostic {
  return {
    ...diagnostic,
    document: doc.index,
    ...(doc.item === undefined ? {} : { item: doc.item }),
    line: (diagnostic.path ? fieldLine(doc, diagnostic.path) : undefined) ?? doc.line,
  };
}
