/** The debugging endpoints under `/admin` (admin-endpoints.ts), reading the other features. */
import { Module, type Type } from '@nestjs/common';
import { AfterAdmissionModule } from '../after-admission/after-admission.module';
import { ClusterStateModule } from '../cluster/cluster-state.module';
import { AdmissionContextModule } from '../context.module';
import { ReviewWebhooksModule } from '../webhooks/review-webhooks.module';
import { ADMIN_CONTROLLERS, ADMIN_PROVIDERS } from './admin-endpoints';

@Module({
  imports: [ClusterStateModule, AfterAdmissionModule, ReviewWebhooksModule, AdmissionContextModule],
  controllers: ADMIN_CONTROLLERS,
  providers: ADMIN_PROVIDERS,
})
export class AdminModule {}

/** The admin feature for the app module, or none when the switch is off. */
export function adminEndpoints(enabled: boolean): Type[] {
  return enabled ? [AdminModule] : [];
}
