/**
 * Kyverno's policy and exception validation webhooks. After what the kind's CRD refuses
 * (`answerValidation`), a ClusterPolicy/Policy with errors Kyverno finds in code is refused with the
 * reason (cleanup policies are the cleanup controller's webhook's to judge),
 * warnings travel back as admission warnings; an exception outside the configured namespaces is
 * admitted with a warning (it is stored but never used). A policy whose generate or
 * mutate-existing rules need writes the background controller may not make is refused too (asked
 * with SubjectAccessReviews about its username, as Kyverno does). A policies.kyverno.io policy
 * (Validating, ImageValidating, Mutating, Generating, Deleting, and the Namespaced forms) or CEL
 * PolicyException whose CEL does not compile or type-check, or that breaks a rule Kyverno checks in
 * code, is refused with the field and the message (`celPolicyValidation`). A cluster GeneratingPolicy is
 * refused when its author (the request's user, asked on create and on a spec change) or the background
 * controller may not write what its generate entries name (`checkGeneratePermissions`). The kinds its rules name are looked up
 * in API discovery (`checkKindsServed`): a kind only subresources serve is refused, one nothing
 * serves yet admitted with a warning. A `globalReference` to a GlobalContextEntry that does not exist
 * or is not Ready yet is an admission warning, as in Kyverno, and so is a kind a rule matches that the
 * reports controller (EDICT_REPORTS_USERNAME) may not get, list and watch.
 */
import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import {
  AdmissionConfigService,
  authorCheckNeeded,
  celPolicyValidation,
  checkGeneratePermissions,
  generatesAcrossNamespaces,
  isCelPolicyKind,
  PolicyCache,
  type GenerateWriter,
} from '@edict/policy';
import {
  allow,
  answerValidation,
  decisionFrom,
  deny,
  type AdmissionDecision,
  type AdmissionRequest,
  type ReviewAnswer,
} from '@edict/admission';
import {
  checkBackgroundPermissions,
  checkKindsServed,
  checkRulesEdictRuns,
  globalContextEntryReady,
  globalContextWarnings,
  reportsPermissionWarnings,
  validatePolicy,
  validatePolicyException,
  type Policy,
  type PolicyException,
} from '@edict/engine';
import { isError, parseKind, type Diagnostic, type JsonValue, type KubeObject } from '@edict/foundation';
import type { ControllerConfig } from '../config/controller-config';
import { CONTROLLER_CONFIG } from '../config/tokens';
import { DeprecatedApiMetrics } from '../metrics/deprecated-api-metrics';
import { globalContextEntryRefusal, KubeAccessReviewer } from '@edict/context';
import { CustomResourceDefinitions, ApiResources, DiscoveryResolver, KubeResources } from '@edict/kube';

@Injectable()
export class PolicyValidationService implements OnModuleInit {
  private readonly logger = new Logger('PolicyValidation');
  private unknownBackgroundUserLogged = false;
  private readonly discovery: DiscoveryResolver;

  constructor(
    @Inject(CONTROLLER_CONFIG) private readonly settings: ControllerConfig,
    private readonly config: AdmissionConfigService,
    private readonly customResources: CustomResourceDefinitions,
    private readonly policies: PolicyCache,
    private readonly accessReviewer: KubeAccessReviewer,
    private readonly apiResources: ApiResources,
    private readonly resources: KubeResources,
    private readonly deprecatedApis: DeprecatedApiMetrics,
  ) {
    this.discovery = new DiscoveryResolver(resources.http);
  }

  /** The policy cache validates what it holds with the same cluster-scoped kinds as this webhook. */
  onModuleInit(): void {
    this.customResources.feedClusterScopedKinds(this.policies);
  }

  policy(body: unknown): Promise<ReviewAnswer> {
    return answerValidation(body, async (request) => {
      this.deprecatedApis.record(request);
      // policies.kyverno.io kinds: their CEL must compile and type-check (the compiler's message, by field).
      if (request.object && isCelPolicyKind(request.object)) return this.celPolicyAdmission(request);
      const policy = request.object as unknown as Policy;
      const diagnostics = validatePolicy(policy, {
        namespaced: policy.kind === 'Policy',
        clusterScopedKinds: this.customResources.clusterScopedKinds(),
        againstCluster: true,
        ...(request.operation === 'UPDATE' && request.oldObject
          ? { previous: request.oldObject as unknown as Policy }
          : {}),
      });
      // Kyverno's checks first (their messages win); then what Edict cannot run, refused; then
      // whether the background controller may write what the rules need.
      if (diagnostics.some(isError)) return decisionFrom(diagnostics);
      diagnostics.push(...(await this.kindsServed(policy)));
      if (diagnostics.some(isError)) return decisionFrom(diagnostics);
      const unsupported = checkRulesEdictRuns(policy);
      if (unsupported.some(isError)) return decisionFrom([...diagnostics, ...unsupported]);
      diagnostics.push(...unsupported, ...(await this.backgroundPermissions(policy)));
      if (diagnostics.some(isError)) return decisionFrom(diagnostics);
      diagnostics.push(...(await this.reportsPermissions(policy)), ...(await this.globalContext(policy)));
      return decisionFrom(diagnostics);
    });
  }

  /** Kyverno's warnings when the reports controller may not get, list and watch a matched kind. */
  private async reportsPermissions(policy: Policy): Promise<Diagnostic[]> {
    const user = this.settings.reportsUsername;
    if (user === undefined) return [];
    const messages = await reportsPermissionWarnings(policy, {
      user,
      reviewer: this.accessReviewer,
      resolve: async (selector) => {
        const parsed = parseKind(selector);
        const resolve = await this.discovery.resolver([selector]);
        const found = resolve({ ...parsed, subresource: parsed.subresource ?? '' })?.find((r) => r.subresource === '');
        return found && { group: found.group, resource: found.resource };
      },
    });
    const object = `${policy.kind}/${policy.metadata?.name ?? ''}`;
    return messages.map((message) => ({ file: '', object, message, severity: 'warning' as const }));
  }

  /** Kyverno's warning for a globalReference to an entry that does not exist or is not ready. */
  private async globalContext(policy: Policy): Promise<Diagnostic[]> {
    const messages = await globalContextWarnings(policy, async (name) => {
      const entry = await this.resources
        .find({ apiVersion: 'kyverno.io/v2beta1', kind: 'GlobalContextEntry', name })
        .catch(() => undefined); // not readable: reported as missing (a warning, as for an absent entry)
      return entry && { ready: globalContextEntryReady(entry['status'] as JsonValue | undefined) };
    });
    const object = `${policy.kind}/${policy.metadata?.name ?? ''}`;
    return messages.map((message) => ({ file: '', object, message, severity: 'warning' as const }));
  }

  /** The rules' kinds against API discovery (read again once for a kind it does not serve). */
  private async kindsServed(policy: Policy): Promise<Diagnostic[]> {
    const kinds = (policy.spec?.rules ?? []).flatMap((rule) =>
      [rule.match, rule.exclude].flatMap((block) => [
        ...(block?.any ?? []).flatMap((filter) => filter.resources?.kinds ?? []),
        ...(block?.all ?? []).flatMap((filter) => filter.resources?.kinds ?? []),
        ...(block?.resources?.kinds ?? []),
      ]),
    );
    const resolve = await this.discovery.resolver(kinds.filter((kind) => !parseKind(kind).kind.includes('*')));
    return checkKindsServed(policy, (selector) => resolve(selector)?.length);
  }

  private async backgroundPermissions(policy: Policy): Promise<Diagnostic[]> {
    const user = this.settings.backgroundUsername;
    if (user === undefined) {
      if (!this.unknownBackgroundUserLogged) {
        this.unknownBackgroundUserLogged = true;
        this.logger.warn(
          "the background controller's username is not configured (EDICT_BACKGROUND_USERNAME): " +
            'whether it may write what generate and mutate-existing rules need is not checked',
        );
      }
      return [];
    }
    return checkBackgroundPermissions(policy, {
      user,
      reviewer: this.accessReviewer,
      resolve: async (apiVersion, kind) => {
        const [group, version] = apiVersion.includes('/') ? apiVersion.split('/', 2) : ['', apiVersion];
        const found = await this.apiResources.resourceOf({ group: group!, version: version!, kind });
        return found && { group: group!, resource: found.resource };
      },
      skipped: (question, why) =>
        this.logger.log(
          `${policy.kind} ${policy.metadata.name}, rule ${question.rule}: the background controller's ` +
            `permissions for ${question.apiVersion}/${question.kind} are not checked: ${why}`,
        ),
    });
  }

  /** A policies.kyverno.io policy: its CEL first, then what a cluster GeneratingPolicy may write. */
  private async celPolicyAdmission(request: AdmissionRequest): Promise<AdmissionDecision> {
    const object = request.object as KubeObject;
    const decision = this.celPolicy(object);
    if (!decision.allowed || !generatesAcrossNamespaces(object)) return decision;
    const writers: GenerateWriter[] = [];
    if (authorCheckNeeded(object, request.oldObject ?? undefined)) {
      const { username = '', groups, uid, extra } = request.userInfo ?? {};
      writers.push({
        role: 'author',
        subject: {
          user: username,
          ...(groups ? { groups } : {}),
          ...(uid ? { uid } : {}),
          ...(extra ? { extra } : {}),
        },
      });
    }
    const background = this.settings.backgroundUsername;
    if (background !== undefined) writers.push({ role: 'background', user: background });
    const problems: string[] = [];
    for (const writer of writers) {
      const errors = await checkGeneratePermissions(object, writer, {
        reviewer: this.accessReviewer,
        resolve: async (apiVersion, kind) => {
          const [group, version] = apiVersion.includes('/') ? apiVersion.split('/', 2) : ['', apiVersion];
          const found = await this.apiResources.resourceOf({ group: group!, version: version!, kind });
          return found && { group: group!, resource: found.resource, namespaced: found.namespaced };
        },
      });
      problems.push(...errors.map((error) => `${error.field}: ${error.message}`));
    }
    if (problems.length === 0) return decision;
    const message = problems.length === 1 ? problems[0]! : `[${problems.join(', ')}]`;
    return deny(message, [...(decision.warnings ?? []), ...problems]);
  }

  private celPolicy(object: KubeObject): AdmissionDecision {
    return celPolicyValidation(object, { exceptionNamespaces: this.config.current().exceptionNamespaces });
  }

  exception(body: unknown): Promise<ReviewAnswer> {
    return answerValidation(body, (request) => {
      this.deprecatedApis.record(request);
      if (request.object && isCelPolicyKind(request.object)) return this.celPolicy(request.object as KubeObject);
      const namespaces = this.config.current().exceptionNamespaces;
      return decisionFrom(
        validatePolicyException(request.object as unknown as PolicyException, {
          allowedNamespaces: namespaces,
          enabled: namespaces.length > 0,
        }),
      );
    });
  }

  /** Kyverno's GlobalContextEntry webhook: the entry's checks (`globalContextEntryRefusal`), the first refusal's message. */
  globalContextEntry(body: unknown): Promise<ReviewAnswer> {
    return answerValidation(body, (request) => {
      const refusal = globalContextEntryRefusal(request.object as never);
      return refusal ? deny(refusal) : allow();
    });
  }
}
