/**
 * `npm start`. By default (local mode): the in-memory API server, the CRDs, the controllers and the
 * example policies, all in this process, and a short guide for kubectl. With EDICT_MODE=cluster:
 * the admission controller against the configured cluster (launch-mode.ts). It first says which
 * mode and why. Ctrl-C stops gracefully; a second Ctrl-C exits at once. The local kubeconfig it
 * wrote is removed however it ends.
 */
import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { startAgainstCluster } from './cluster/against-cluster';
import { clusterGuide, localGuide } from './guide';
import { describeLaunchMode, launchModeOf } from './launch-mode';
import { launcherApiServerSettings, loadLauncherConfig } from './launcher-config';
import { startLocalCluster } from './local/local-cluster';
import { errorMessage } from '@edict/foundation';
import { controllerLogger } from '@edict/controller-runtime';

async function main(): Promise<void> {
  const settings = loadLauncherConfig(process.env);
  // Kyverno's logging settings, when set; otherwise the launcher's quiet defaults below.
  const logging =
    settings.loggingFormat === 'json' || settings.verbosity !== 2 ? controllerLogger(settings) : undefined;
  const mode = launchModeOf(settings.mode, { env: process.env, localKubeconfigPath: settings.kubeconfigPath });
  say(describeLaunchMode(mode));
  let stop: () => Promise<void>;
  if (mode.kind === 'local') {
    say(
      `Starting Edict: an in-memory Kubernetes API server, the admission controller and the policies of ${settings.examplesDir}/ ...`,
    );
    const local = await startLocalCluster({
      apiPort: settings.apiPort,
      kubeconfigPath: settings.kubeconfigPath,
      examplesDir: settings.examplesDir,
      apiServer: launcherApiServerSettings(settings),
      // Quiet while starting (transient "no certificate yet" notes); warnings matter afterwards.
      logger: logging ?? ['error'],
    });
    Logger.overrideLogger(logging ?? ['warn', 'error']);
    stop = local.stop;
    // A second Ctrl-C, or a crash, exits without stop(): the kubeconfig must not outlive the cluster.
    process.on('exit', () => {
      try {
        local.removeKubeconfig();
      } catch (error) {
        process.stderr.write(`npm start: could not remove ${local.kubeconfigPath}: ${errorMessage(error)}\n`);
      }
    });
    for (const file of local.staleFilesRemoved) say(`Removed ${file}, left by an earlier run that did not stop.`);
    say(
      localGuide({
        apiUrl: local.apiUrl,
        webhookPort: local.controller.port,
        service: `${local.config.namespace}/${local.config.serviceName}`,
        backgroundPort: local.background.port,
        reportsPort: local.reports.port,
        cleanupPort: local.cleanup.port,
        cleanupService: local.cleanupService,
        kubeconfigPath: local.kubeconfigPath,
        caPath: local.caPath,
        swagger: local.config.adminEndpoints,
        policies: local.installed.map(({ object }) => object.metadata.name),
        rejected: local.rejected.map(({ policy, message }) => ({ source: policy.source, message })),
      }),
    );
  } else {
    say(`Starting the admission controller against ${mode.description} ...`);
    // Startup's route listing would bury the guide; the controller's own news matters afterwards.
    const running = await startAgainstCluster({
      logger: logging ?? ['warn', 'error'],
      // Without KUBECONFIG, kubectl's default file (not a local cluster's leftover kubeconfig).
      ...(mode.kubeconfigPath ? { controller: { kubeconfigPath: mode.kubeconfigPath } } : {}),
    });
    Logger.overrideLogger(logging ?? ['log', 'warn', 'error']);
    stop = running.stop;
    say(
      clusterGuide({
        cluster: running.cluster,
        server: running.server,
        host: running.config.host,
        webhookPort: running.controller.port,
        namespace: running.config.namespace,
        service: running.config.serviceName,
        servicePort: running.config.webhookServicePort,
        ...(running.config.webhookUrl ? { webhookUrl: running.config.webhookUrl } : {}),
      }),
    );
  }

  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) {
      say(`${signal} again: exiting now.`);
      process.exit(1);
    }
    stopping = true;
    say(`${signal}: stopping (Ctrl-C again to exit at once) ...`);
    stop().then(
      () => {
        say('Stopped.');
        process.exit(0);
      },
      (error: unknown) => {
        process.stderr.write(`npm start: stopping failed: ${errorMessage(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

function say(text: string): void {
  process.stdout.write(`${text}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`npm start: ${errorMessage(error)}\n`);
  process.exit(1);
});
