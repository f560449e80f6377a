/**
 * The RoleResolver of the webhooks: informers on RoleBindings and ClusterRoleBindings indexed by
 * subject. Always consulted: with the index and the per-user cache a lookup costs about a
 * microsecond (see role-resolver.spec.ts), less than deciding whether any policy needs roles.
 */
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { RequestRoles } from '@edict/admission';
import type { UserInfo } from '@edict/engine';
import { InformerFactory, type Informer, type KubeObject } from '@edict/kube';
import { CONTROLLER_CONFIG } from '../config/tokens';
import type { ControllerConfig } from '../config/controller-config';
import { BindingRoleResolver, SUBJECT_INDEX, subjectIndex } from './role-resolver';

@Injectable()
export class RoleResolverService implements OnModuleInit {
  private readonly informers: Informer<KubeObject>[];
  private readonly resolver: BindingRoleResolver;

  constructor(@Inject(CONTROLLER_CONFIG) settings: ControllerConfig, informers: InformerFactory) {
    const spec = (kind: string) =>
      informers.create<KubeObject>({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind,
        watchTimeoutSeconds: settings.watchTimeoutSeconds,
        indexers: { [SUBJECT_INDEX]: subjectIndex },
      });
    const roleBindings = spec('RoleBinding');
    const clusterRoleBindings = spec('ClusterRoleBinding');
    this.informers = [roleBindings, clusterRoleBindings];
    this.resolver = new BindingRoleResolver(roleBindings, clusterRoleBindings);
    for (const informer of this.informers) {
      const invalidate = () => this.resolver.invalidate();
      informer.on('add', invalidate);
      informer.on('update', invalidate);
      informer.on('delete', invalidate);
    }
  }

  onModuleInit(): void {
    for (const informer of this.informers) informer.start();
  }

  rolesFor(userInfo: UserInfo): RequestRoles {
    return this.resolver.rolesFor(userInfo);
  }

  hasSynced(): boolean {
    return this.informers.every((informer) => informer.hasSynced());
  }
}
