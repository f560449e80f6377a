/**
 * chainsaw's Configuration (`.chainsaw.yaml`), v1alpha1 (flat spec) and v1alpha2 (grouped spec).
 * Only what changes how a test runs is read; reporting and CLI-only settings are ignored.
 */
import { existsSync } from 'node:fs';
import { dirname, join, parse } from 'node:path';
import { ChainsawLoadError, Fields } from './fields';
import { readDocuments } from './load-test';
import { DEFAULT_CONFIGURATION, type ChainsawConfiguration } from './model';
import { readTimeouts } from './operations';

export const CONFIGURATION_FILE = '.chainsaw.yaml';
const PROPAGATION = ['Background', 'Foreground', 'Orphan'] as const;

export function loadConfiguration(file: string): ChainsawConfiguration {
  const documents = readDocuments(file);
  if (documents.length !== 1) {
    throw new ChainsawLoadError(file, '', `expected one Configuration document, found ${documents.length}`);
  }
  const doc = documents[0]!;
  const root = Fields.root(doc, ['apiVersion', 'kind', 'metadata', 'spec']);
  const apiVersion = root.string('apiVersion', true);
  if (root.string('kind', true) !== 'Configuration') throw root.error('expected kind Configuration', ['kind']);
  const spec = root.object('spec', Object.keys(root.tree('spec') ?? {})) ?? new Fields(doc, {}, ['spec'], []);
  const lenient = (key: string): Fields | undefined => spec.object(key, Object.keys(spec.tree(key) ?? {}));
  const base = { ...DEFAULT_CONFIGURATION, file };
  if (apiVersion === 'chainsaw.kyverno.io/v1alpha1') {
    return {
      ...base,
      timeouts: readTimeouts(spec),
      namespace: spec.string('namespace'),
      skipDelete: spec.boolean('skipDelete') ?? false,
      delayBeforeCleanup: spec.duration('delayBeforeCleanup'),
      template: spec.boolean('template') ?? true,
      failFast: spec.boolean('failFast') ?? false,
      deletionPropagationPolicy: spec.oneOf('deletionPropagationPolicy', PROPAGATION) ?? 'Background',
    };
  }
  if (apiVersion === 'chainsaw.kyverno.io/v1alpha2') {
    const cleanup = lenient('cleanup');
    const execution = lenient('execution');
    const namespace = lenient('namespace');
    const templating = lenient('templating');
    const deletion = lenient('deletion');
    return {
      ...base,
      timeouts: readTimeouts(spec),
      namespace: namespace?.string('name'),
      fastDelete: namespace?.boolean('fastDelete') ?? false,
      skipDelete: cleanup?.boolean('skipDelete') ?? false,
      delayBeforeCleanup: cleanup?.duration('delayBeforeCleanup'),
      template: templating?.boolean('enabled') ?? true,
      failFast: execution?.boolean('failFast') ?? false,
      deletionPropagationPolicy: deletion?.oneOf('propagation', PROPAGATION) ?? 'Background',
    };
  }
  throw root.error(`expected chainsaw.kyverno.io/v1alpha1 or v1alpha2, got "${apiVersion}"`, ['apiVersion']);
}

/**
 * The configuration file of a test folder: the nearest `.chainsaw.yaml` walking up, not above
 * `stopAt`. Chainsaw itself reads one file (`--config`, or the one in its working directory); Kyverno
 * runs each suite folder with that folder's file, which the walk reproduces.
 */
export function findConfigurationFile(folder: string, stopAt?: string): string | undefined {
  let current = folder;
  for (;;) {
    const candidate = join(current, CONFIGURATION_FILE);
    if (existsSync(candidate)) return candidate;
    if (stopAt !== undefined && current === stopAt) return undefined;
    const parent = dirname(current);
    if (parent === current || current === parse(current).root) return undefined;
    current = parent;
  }
}
