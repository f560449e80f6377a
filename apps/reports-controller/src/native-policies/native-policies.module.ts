/** Kubernetes' own admission policies, shared by the background scans and the aggregation. */
import { Module } from '@nestjs/common';
import { KubeNativePolicySource } from './native-policy-source';

@Module({ providers: [KubeNativePolicySource], exports: [KubeNativePolicySource] })
export class NativePoliciesModule {}
