/**
 * `PolicyModule.forRoot(options)`: the policy cache fed by informers on ClusterPolicy, Policy and
 * PolicyException, and the CEL policy cache (CelPolicyCache) fed by informers on ValidatingPolicy,
 * NamespacedValidatingPolicy and the CEL PolicyException. Needs `KubeModule` (global) for the
 * `InformerFactory`.
 *
 *   imports: [KubeModule.forRoot(), PolicyModule.forRoot({ exceptionNamespaces: ['kyverno'] })]
 *   constructor(private readonly policies: PolicyCache) {}
 */
import { Module, type DynamicModule, type FactoryProvider, type ModuleMetadata, type Provider } from '@nestjs/common';
import { InformerFactory } from '@edict/kube';
import { CelPolicyCache } from './cel/cel-policy-cache';
import { createCelPolicyFeeds } from './cel/cel-policy-feeds';
import { createPolicyFeeds } from './informers/policy-feeds';
import { PolicyCache } from './policy-cache';
import { CEL_POLICY_FEEDS, POLICY_FEEDS, POLICY_OPTIONS } from './policy.constants';
import { validatePolicyOptions, type PolicyModuleOptions } from './policy.options';

export interface PolicyModuleAsyncOptions extends Pick<ModuleMetadata, 'imports'> {
  readonly useFactory: (...args: never[]) => Partial<PolicyModuleOptions> | Promise<Partial<PolicyModuleOptions>>;
  readonly inject?: FactoryProvider['inject'];
}

@Module({})
export class PolicyModule {
  static forRoot(options: Partial<PolicyModuleOptions> = {}): DynamicModule {
    const validated = validatePolicyOptions(options); // fail at registration, naming the bad field
    return PolicyModule.build([{ provide: POLICY_OPTIONS, useValue: validated }]);
  }

  static forRootAsync(options: PolicyModuleAsyncOptions): DynamicModule {
    return PolicyModule.build(
      [
        {
          provide: POLICY_OPTIONS,
          useFactory: async (...args: never[]) => validatePolicyOptions(await options.useFactory(...args)),
          inject: options.inject ?? [],
        },
      ],
      options.imports,
    );
  }

  private static build(optionProviders: Provider[], imports: ModuleMetadata['imports'] = []): DynamicModule {
    return {
      module: PolicyModule,
      imports,
      providers: [
        ...optionProviders,
        {
          provide: POLICY_FEEDS,
          useFactory: (factory: InformerFactory, options: PolicyModuleOptions) => createPolicyFeeds(factory, options),
          inject: [InformerFactory, POLICY_OPTIONS],
        },
        {
          provide: CEL_POLICY_FEEDS,
          useFactory: (factory: InformerFactory, options: PolicyModuleOptions) =>
            createCelPolicyFeeds(factory, options),
          inject: [InformerFactory, POLICY_OPTIONS],
        },
        PolicyCache,
        CelPolicyCache,
      ],
      exports: [PolicyCache, CelPolicyCache, POLICY_OPTIONS],
    };
  }
}
