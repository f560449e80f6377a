/**
 * The admission side of `synchronize` for objects that are not triggers (Kyverno's non-trigger
 * handling): an admitted update or deletion of a generated object or of a clone source becomes
 * UpdateRequests for the triggers whose downstream it affects. It runs for every admitted
 * validating review, whether or not a policy selects the request's kind as a trigger: the
 * webhooks cover the kinds generate rules write and clone for exactly this.
 */
import { Inject, Injectable } from '@nestjs/common';
import {
  isFiltered,
  mayConcernSynchronize,
  synchronizeRequestsFor,
  toResourceRequest,
  type AdmissionRequest,
  type SynchronizeLookup,
  type UpdateRequestSpec,
} from '@edict/admission';
import { KubeResources } from '@edict/kube';
import { AdmissionConfigService, PolicyCache } from '@edict/policy';
import { NamespaceLabels } from '../cluster/namespace-labels.service';
import { RoleResolverService } from '../cluster/role-resolver.service';
import type { ControllerConfig } from '../config/controller-config';
import { CONTROLLER_CONFIG } from '../config/tokens';

@Injectable()
export class SynchronizeRequestsService {
  private readonly lookup: SynchronizeLookup;

  constructor(
    @Inject(CONTROLLER_CONFIG) private readonly settings: ControllerConfig,
    private readonly config: AdmissionConfigService,
    private readonly namespaces: NamespaceLabels,
    private readonly roles: RoleResolverService,
    cache: PolicyCache,
    resources: KubeResources,
  ) {
    this.lookup = {
      policy: (key) => cache.snapshot().policies.get(key)?.compiled,
      list: async (apiVersion, kind, labels) => {
        const labelSelector = Object.entries(labels)
          .map(([key, value]) => `${key}=${value}`)
          .join(',');
        // Only the labels of the listed objects are read.
        return (await resources.list({ apiVersion, kind }, { labelSelector })).items;
      },
    };
  }

  /** A cheap first look, on the review path: whether the request needs `specsFor` at all. */
  concerns(request: AdmissionRequest): boolean {
    if (request.dryRun === true) return false;
    return mayConcernSynchronize(toResourceRequest(request, {}), {
      backgroundUsername: this.settings.backgroundUsername,
    });
  }

  /** The UpdateRequests for an admitted request (none for requests the resource filters skip). */
  async specsFor(request: AdmissionRequest): Promise<UpdateRequestSpec[]> {
    if (!this.concerns(request)) return [];
    const resourceRequest = toResourceRequest(request, {
      namespaceLabels: await this.namespaces.labelsForRequest(request),
      roles: this.roles.rolesFor(request.userInfo ?? {}),
    });
    if (isFiltered(resourceRequest, this.config.current())) return [];
    return synchronizeRequestsFor(resourceRequest, this.lookup, {
      backgroundUsername: this.settings.backgroundUsername,
    });
  }
}
