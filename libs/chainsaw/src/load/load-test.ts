/** Reading chainsaw Test files and the StepTemplates their steps use. */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { isError, parseDocuments, type SourceDocument } from '@edict/foundation';
import { ChainsawLoadError, Fields } from './fields';
import type { ChainsawTest, Operation, Step } from './model';
import { readBindings, readOperations, readTimeouts } from './operations';

export const CHAINSAW_V1ALPHA1 = 'chainsaw.kyverno.io/v1alpha1';
const PROPAGATION = ['Background', 'Foreground', 'Orphan'] as const;

/** The YAML documents of a file; a syntax error is a ChainsawLoadError naming the line. */
export function readDocuments(file: string): SourceDocument[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ChainsawLoadError(file, '', `cannot read: ${(error as Error).message}`);
  }
  const { documents, errors } = parseDocuments(text, file);
  const fatal = errors.find(isError);
  if (fatal) throw new ChainsawLoadError(file, '', fatal.message, fatal.line, fatal.document);
  return documents;
}

/**
 * Every Test in a file (a file usually holds one). Throws ChainsawLoadError for the first problem,
 * naming the file, line and field.
 */
export function loadTestFile(file: string): ChainsawTest[] {
  const tests = readDocuments(file).map((doc) => readTest(doc));
  if (tests.length === 0) throw new ChainsawLoadError(file, '', 'no Test document in the file');
  return tests;
}

function readTest(doc: SourceDocument): ChainsawTest {
  const root = Fields.root(doc, ['apiVersion', 'kind', 'metadata', 'spec']);
  checkKind(root, 'Test');
  const metadata = root.tree('metadata') ?? {};
  const name = typeof metadata['name'] === 'string' ? metadata['name'] : '';
  if (!name) throw root.error('required field is missing', ['metadata', 'name']);
  const spec = root.object('spec', [
    'description',
    'timeouts',
    'cluster',
    'clusters',
    'skip',
    'concurrent',
    'skipDelete',
    'template',
    'compiler',
    'namespace',
    'namespaceTemplate',
    'namespaceTemplateCompiler',
    'scenarios',
    'bindings',
    'steps',
    'catch',
    'forceTerminationGracePeriod',
    'delayBeforeCleanup',
    'deletionPropagationPolicy',
    'failFast',
  ]);
  if (!spec) throw root.error('required field is missing', ['spec']);
  for (const unsupported of ['cluster', 'clusters', 'scenarios', 'namespaceTemplate']) {
    if (spec.has(unsupported))
      throw spec.error(`${unsupported} is not supported by this runner`, [...spec.path, unsupported]);
  }
  const compiler = spec.string('compiler');
  if (compiler !== undefined && compiler !== 'jp')
    throw spec.error(`the ${compiler} compiler is not supported`, [...spec.path, 'compiler']);
  const folder = dirname(doc.file);
  const stepFields = spec.objects('steps', [
    'name',
    'description',
    'timeouts',
    'deletionPropagationPolicy',
    'cluster',
    'clusters',
    'skipDelete',
    'template',
    'bindings',
    'try',
    'catch',
    'finally',
    'cleanup',
    'use',
  ]);
  if (stepFields.length === 0) throw spec.error('a test needs at least one step', [...spec.path, 'steps']);
  return {
    name,
    file: doc.file,
    folder,
    metadata,
    description: spec.string('description'),
    skip: spec.boolean('skip') ?? false,
    concurrent: spec.boolean('concurrent'),
    namespace: spec.string('namespace'),
    timeouts: readTimeouts(spec),
    bindings: readBindings(spec),
    template: spec.boolean('template'),
    skipDelete: spec.boolean('skipDelete'),
    delayBeforeCleanup: spec.duration('delayBeforeCleanup'),
    deletionPropagationPolicy: spec.oneOf('deletionPropagationPolicy', PROPAGATION),
    catch: readOperations(spec, 'catch'),
    steps: stepFields.map((step, i) => readStep(step, i, folder)),
  };
}

function readStep(step: Fields, index: number, folder: string): Step {
  for (const unsupported of ['cluster', 'clusters']) {
    if (step.has(unsupported))
      throw step.error('multiple clusters are not supported by this runner', [...step.path, unsupported]);
  }
  const base = {
    name: step.string('name') ?? `step-${String(index + 1).padStart(2, '0')}`,
    description: step.string('description'),
    timeouts: readTimeouts(step),
    template: step.boolean('template'),
    skipDelete: step.boolean('skipDelete'),
    deletionPropagationPolicy: step.oneOf('deletionPropagationPolicy', PROPAGATION),
  };
  const use = step.object('use', ['template', 'with']);
  if (use) {
    for (const block of ['try', 'catch', 'finally', 'cleanup']) {
      if (step.has(block))
        throw step.error(`a step that uses a template cannot also hold ${block}`, [...step.path, block]);
    }
    const templatePath = use.string('template', true)!;
    const withFields = use.object('with', ['bindings']);
    // Chainsaw joins the template path to the test's folder even when it starts with '/' (Go's
    // filepath.Join), which Kyverno's tests rely on (`/../../../_step-templates/...`).
    const template = loadStepTemplate(join(folder, templatePath), use);
    return {
      ...base,
      // Outer to inner: the step's own, the template's defaults, then the caller's arguments.
      bindings: [...readBindings(step), ...template.bindings, ...(withFields ? readBindings(withFields) : [])],
      try: template.try,
      catch: template.catch,
      finally: template.finally,
      cleanup: template.cleanup,
    };
  }
  const tryOps = readOperations(step, 'try');
  if (!step.has('try')) throw step.error('required field is missing', [...step.path, 'try']);
  return {
    ...base,
    bindings: readBindings(step),
    try: tryOps,
    catch: readOperations(step, 'catch'),
    finally: readOperations(step, 'finally'),
    cleanup: readOperations(step, 'cleanup'),
  };
}

interface StepTemplateBody {
  bindings: Step['bindings'];
  try: Operation[];
  catch: Operation[];
  finally: Operation[];
  cleanup: Operation[];
}

/** A StepTemplate file; errors in it are reported against the template file itself. */
export function loadStepTemplate(file: string, caller?: Fields): StepTemplateBody {
  let documents: SourceDocument[];
  try {
    documents = readDocuments(file);
  } catch (error) {
    if (caller && error instanceof ChainsawLoadError && error.field === '' && error.detail.startsWith('cannot read')) {
      throw caller.error(`step template ${file}: ${error.detail}`, [...caller.path, 'template']);
    }
    throw error;
  }
  if (documents.length !== 1)
    throw new ChainsawLoadError(file, '', `expected one StepTemplate document, found ${documents.length}`);
  const root = Fields.root(documents[0]!, ['apiVersion', 'kind', 'metadata', 'spec']);
  checkKind(root, 'StepTemplate');
  const spec = root.object('spec', ['bindings', 'try', 'catch', 'finally', 'cleanup']);
  if (!spec) throw root.error('required field is missing', ['spec']);
  if (!spec.has('try')) throw spec.error('required field is missing', [...spec.path, 'try']);
  return {
    bindings: readBindings(spec),
    try: readOperations(spec, 'try'),
    catch: readOperations(spec, 'catch'),
    finally: readOperations(spec, 'finally'),
    cleanup: readOperations(spec, 'cleanup'),
  };
}

function checkKind(root: Fields, kind: string): void {
  const apiVersion = root.string('apiVersion', true);
  if (apiVersion !== CHAINSAW_V1ALPHA1) {
    throw root.error(`expected ${CHAINSAW_V1ALPHA1}, got "${apiVersion}"`, ['apiVersion']);
  }
  const actual = root.string('kind', true);
  if (actual !== kind) throw root.error(`expected ${kind}, got "${actual}"`, ['kind']);
}
