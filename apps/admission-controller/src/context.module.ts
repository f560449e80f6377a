/**
 * The context loaders (configMap, apiCall, globalReference, imageRegistry with pull secrets),
 * validate.cel's resource loader and access reviewer: one set, shared by the review webhooks and
 * admin evaluate. Their providers are imported from one place (`./context/`), which moves to
 * libs/context.
 */
import { Module } from '@nestjs/common';
import { ClusterStateModule } from './cluster/cluster-state.module';
import { contextLoaderProviders } from './context/context-loader.providers';

@Module({ imports: [ClusterStateModule], providers: contextLoaderProviders, exports: contextLoaderProviders })
export class AdmissionContextModule {}
