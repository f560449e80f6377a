/**
 * validate.cel's resource loader (over this app's Namespace informer) and the access reviewer, one
 * set shared by the review webhooks and admin evaluate. The context entries' loaders come from
 * @edict/context's ContextModule, which the app module imports.
 */
import { Module } from '@nestjs/common';
import { ClusterStateModule } from './cluster/cluster-state.module';
import { contextLoaderProviders } from './context/context-loader.providers';

@Module({ imports: [ClusterStateModule], providers: contextLoaderProviders, exports: contextLoaderProviders })
export class AdmissionContextModule {}
