/**
 * The RoleResolver of the webhooks: informers on RoleBindings and ClusterRoleBindings indexed by
 * subject. Always consulted: with the index and the per-user cache a lookup costs about a
 * microsecond (see role-resolver.spec.ts), less than deciding whether any policy needs roles.
 */
import { Inject, Injectable } from '@nestjs/common';
import type { RequestRoles } from '@edict/admission';
import type { UserInfo } from '@edict/engine';
import { InformerFactory, InformerService } from '@edict/kube';
import { type KubeObject } from '@edict/foundation';
import { CONTROLLER_CONFIG } from '../config/tokens';
import type { ControllerConfig } from '../config/controller-config';
import { BindingRoleResolver, SUBJECT_INDEX, subjectIndex } from './role-resolver';

@Injectable()
export class RoleResolverService extends InformerService {
  private readonly resolver: BindingRoleResolver;

  constructor(@Inject(CONTROLLER_CONFIG) settings: ControllerConfig, informers: InformerFactory) {
    super(informers, settings.watchTimeoutSeconds);
    const bindings = (kind: string) =>
      this.watch<KubeObject>({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind,
        indexers: { [SUBJECT_INDEX]: subjectIndex },
      });
    const roleBindings = bindings('RoleBinding');
    const clusterRoleBindings = bindings('ClusterRoleBinding');
    this.resolver = new BindingRoleResolver(roleBindings, clusterRoleBindings);
    for (const informer of [roleBindings, clusterRoleBindings]) {
      const invalidate = () => this.resolver.invalidate();
      informer.on('add', invalidate);
      informer.on('update', invalidate);
      informer.on('delete', invalidate);
    }
  }

  rolesFor(userInfo: UserInfo): RequestRoles {
    return this.resolver.rolesFor(userInfo);
  }
}
