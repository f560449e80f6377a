/**
 * A minimal kube-controller-manager for the in-memory cluster: the Deployment, ReplicaSet, service
 * account and ClusterRole aggregation controllers, and with a cluster CA the client CSR signer, fed by
 * the API server's change events as informers would feed them, writing through its typed client.
 * There are no nodes, so the Pods they create stay Pending and no replica becomes ready, as in a
 * cluster without nodes.
 */
import type { ApiClient, ClusterCa } from '@edict/apiserver';
import { ClusterRoleAggregationController } from './controllers/clusterrole-aggregation-controller';
import { ControllerClient } from './controllers/controller-client';
import { CsrSigningController } from './controllers/csr-signing-controller';
import { DeploymentController } from './controllers/deployment-controller';
import { ReplicaSetController } from './controllers/replicaset-controller';
import { ServiceAccountController } from './controllers/service-account-controller';

export class ControllerManager {
  private readonly deployments: DeploymentController;
  private readonly replicaSets: ReplicaSetController;
  private readonly clusterRoles: ClusterRoleAggregationController;
  private readonly serviceAccounts: ServiceAccountController;
  private readonly csrSigner: CsrSigningController | undefined;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly client: ApiClient,
    ca?: ClusterCa,
  ) {
    const cache = client.cache;
    this.deployments = new DeploymentController(cache, new ControllerClient(client, 'deployment-controller'));
    this.replicaSets = new ReplicaSetController(cache, new ControllerClient(client, 'replicaset-controller'));
    this.clusterRoles = new ClusterRoleAggregationController(
      cache,
      new ControllerClient(client, 'clusterrole-aggregation-controller'),
    );
    this.serviceAccounts = new ServiceAccountController(
      cache,
      new ControllerClient(client, 'service-account-controller'),
    );
    this.csrSigner = ca
      ? new CsrSigningController(cache, new ControllerClient(client, 'certificate-controller'), ca)
      : undefined;
  }

  /** Starts watching the API server and syncs everything there already (a no-op when running). */
  start(): void {
    if (this.unsubscribe) return;
    for (const queue of this.queues()) queue.start();
    this.unsubscribe = this.client.cache.subscribe((event) => {
      this.deployments.observe(event);
      this.replicaSets.observe(event);
      this.clusterRoles.observe(event);
      this.serviceAccounts.observe(event);
      this.csrSigner?.observe(event);
    });
    this.deployments.resyncAll();
    this.replicaSets.resyncAll();
    this.clusterRoles.resyncAll();
    this.serviceAccounts.resyncAll();
    this.csrSigner?.resyncAll();
  }

  /** Stops watching and drops queued work; resolves once running syncs are done. */
  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    await Promise.all(this.queues().map((queue) => queue.stop()));
  }

  /** Resolves once no controller has work queued or running (delayed retries aside). */
  async settled(): Promise<void> {
    while (!this.queues().every((queue) => queue.depth === 0)) {
      await Promise.all(this.queues().map((queue) => queue.drained()));
    }
  }

  private queues() {
    const queues = [
      this.deployments.queue,
      this.replicaSets.queue,
      this.clusterRoles.queue,
      this.serviceAccounts.queue,
    ];
    return this.csrSigner ? [...queues, this.csrSigner.queue] : queues;
  }
}
