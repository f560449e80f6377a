/**
 * The embedded cluster as Kyverno's suite expects its installation: the in-memory API server with
 * Edict installed under Kyverno's names (namespace, ConfigMap, Service, webhook configurations,
 * Secrets, Leases), the ConfigMap Kyverno's chart installs, and PolicyExceptions honoured from any
 * namespace (the suite's Kyverno install enables them so).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { ApiServerSettings } from '@edict/apiserver';
import type { JsonObject } from '@edict/foundation';
import { startLocalCluster } from '@edict/launcher';

export interface SuiteCluster {
  readonly kubeconfigPath: string;
  /** The environment of the tests' scripts: `kyverno` on the PATH is Edict's CLI. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Stops the controller and the API server and removes the kubeconfig's folder. */
  stop(): Promise<void>;
}

export const INSTALL_MANIFEST = resolve('test/e2e-conformance/kyverno-install.yaml');
const CLI = resolve('dist/apps/cli/main.js');

/** How a group of tests is installed: controller variables and the API server's settings. */
export interface SuiteInstall {
  /** Controller variables on top of the suite's install (a test's own Helm values). */
  readonly env: Readonly<Record<string, string>>;
  /** The API server as the test's kind cluster configuration sets it (served API versions). */
  readonly apiServer?: ApiServerSettings;
}

export async function startSuiteCluster(suiteInstall: SuiteInstall = { env: {} }): Promise<SuiteCluster> {
  const install = suiteInstall.env;
  const workDir = mkdtempSync(join(tmpdir(), 'edict-e2e-'));
  // Exceptions from any namespace, unless the test's install says otherwise (exceptions disabled: none).
  const exceptions = 'EDICT_EXCEPTION_NAMESPACES' in install ? {} : { exceptionNamespaces: ['*'] };
  const cluster = await startLocalCluster({
    apiPort: 0,
    ...(suiteInstall.apiServer ? { apiServer: suiteInstall.apiServer } : {}),
    kubeconfigPath: join(workDir, 'kubeconfig'),
    env: { ...process.env, EDICT_INSTALL_NAME: 'kyverno', EDICT_WEBHOOK_PORT: '0', ...install },
    // The suite's Kyverno install honours exceptions from any namespace and omits no event type.
    controller: { ...exceptions, omitEvents: [], adminEndpoints: false },
    background: { ...exceptions, omitEvents: [] },
    // Kyverno's `standard` config also turns on validatingAdmissionPolicyReports (the reports controller's default).
    reports: { ...exceptions, omitEvents: [], validatingAdmissionPolicyReports: true },
    preinstalled: readManifest(INSTALL_MANIFEST),
    logger: process.env['EDICT_E2E_LOG'] ? ['error', 'warn', 'log'] : ['error'],
  });
  return {
    kubeconfigPath: cluster.kubeconfigPath,
    env: { ...process.env, PATH: `${kyvernoShim(workDir)}${delimiter}${process.env['PATH'] ?? ''}` },
    stop: async () => {
      await cluster.stop();
      rmSync(workDir, { recursive: true, force: true });
    },
  };
}

/** A `kyverno` command running Edict's CLI (built by the npm script), for the suite's `kyverno apply` steps. */
function kyvernoShim(workDir: string): string {
  const bin = join(workDir, 'bin');
  mkdirSync(bin);
  const script = `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} "$@"\n`;
  writeFileSync(join(bin, 'kyverno'), script, { mode: 0o755 });
  return bin;
}

function readManifest(path: string): JsonObject[] {
  return parseAllDocuments(readFileSync(path, 'utf8'))
    .map((document) => document.toJS() as JsonObject | null)
    .filter((object): object is JsonObject => object !== null);
}
