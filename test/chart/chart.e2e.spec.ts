/**
 * The Helm chart: `helm lint --strict` and `helm template` over a matrix of values, every rendered
 * object valid against Kubernetes' schemas, and what each values set must produce.
 */
import { describe, expect, it } from 'vitest';
import { ControllerConfig } from '@edict/admission-controller';
import { MetricsConfiguration } from '@edict/controller-runtime';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CHART, renderChart, runHelm, type RenderedObject } from './helm';
import { kubernetesSchemaProblem } from './kubernetes-schemas';

/** Kinds without a Kubernetes schema that the chart may render (Prometheus Operator's). */
const UNCHECKED_KINDS = new Set(['monitoring.coreos.com/v1/ServiceMonitor']);

const MATRIX: Readonly<Record<string, readonly string[]>> = {
  default: [],
  HA: ['-f', `${CHART}/values-ha.yaml`],
  'features off': [
    '--set',
    'backgroundController.enabled=false,reportsController.enabled=false,cleanupController.enabled=false',
    '--set',
    'webhooksCleanup.enabled=false,config.create=false,admissionController.podDisruptionBudget.enabled=false',
    '--set',
    'admissionController.metricsService.create=false,features.omitEvents.eventTypes=null',
    '--set',
    'features.admissionReports.enabled=false,admissionController.networkPolicy.enabled=false',
    '--set',
    'features.forceFailurePolicyIgnore.enabled=true,crds.install=false',
    '--set',
    'metricsConfig.create=false,metricsConfig.name=shared-metrics',
  ],
  'tracing and JSON logs': [
    '--set',
    'admissionController.tracing.enabled=true,admissionController.tracing.address=otel.observability,admissionController.tracing.port=4317',
    '--set',
    'admissionController.tracing.creds=otel-ca,features.logging.format=json,features.logging.verbosity=4',
  ],
  'custom names': [
    '--set',
    'fullnameOverride=acme,namespaceOverride=policy,config.name=acme-config',
    '--set',
    'admissionController.rbac.serviceAccount.name=acme-webhooks,image.registry=registry.example,image.tag=1.2.3',
    '--set',
    'features.policyExceptions.enabled=true,features.policyExceptions.namespace=exceptions',
    '--set',
    'backgroundController.settings.genWorkers=4,reportsController.settings.backgroundScan=false',
    '--set',
    'features.validatingAdmissionPolicyReports.enabled=false,features.mutatingAdmissionPolicyReports.enabled=true',
    '--set',
    'openreports.enabled=true,features.aggregateReports.enabled=false,features.policyReports.enabled=false',
    '--set',
    'features.reporting.allowedResults.fail=true,features.reporting.allowedResults.warn=true,features.reporting.allowedResults.pass=false',
    '--set',
    'admissionController.serviceMonitor.enabled=true,reportsController.serviceMonitor.enabled=true',
    '--set-json',
    'cleanupController.rbac.clusterRole.extraResources=[{"apiGroups":[""],"resources":["pods"],"verbs":["delete","list","watch"]}]',
    '--set-json',
    'admissionController.networkPolicy.ingressFrom=[{"ipBlock":{"cidr":"10.0.0.0/24"}},{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"monitoring"}}}]',
  ],
};

const rendered = Object.fromEntries(Object.entries(MATRIX).map(([name, args]) => [name, renderChart(args)]));

function ofKind(objects: readonly RenderedObject[], kind: string): RenderedObject[] {
  return objects.filter((object) => object.kind === kind);
}

function named(objects: readonly RenderedObject[], kind: string, name: string): RenderedObject {
  const found = objects.find((object) => object.kind === kind && object.metadata?.name === name);
  if (!found)
    throw new Error(`no ${kind} ${name} among ${objects.map((o) => `${o.kind}/${o.metadata?.name}`).join(', ')}`);
  return found;
}

interface Container {
  name: string;
  args?: string[];
  env?: Array<{ name: string; value?: string }>;
  resources: { requests: Record<string, string>; limits: Record<string, string> };
  securityContext: Record<string, unknown>;
  readinessProbe: { httpGet: { path: string; scheme: string } };
  livenessProbe: { httpGet: { path: string; scheme: string } };
  image: string;
}

function container(deployment: RenderedObject): Container {
  return (deployment as unknown as { spec: { template: { spec: { containers: Container[] } } } }).spec.template.spec
    .containers[0]!;
}

function env(deployment: RenderedObject): Record<string, string | undefined> {
  return Object.fromEntries((container(deployment).env ?? []).map(({ name, value }) => [name, value]));
}

describe('the Helm chart', () => {
  it.each(Object.entries(MATRIX))('passes helm lint --strict with the %s values', (_name, args) => {
    const { status, output } = runHelm(['lint', '--strict', CHART, ...args]);
    expect(status, output).toBe(0);
  });

  it.each(Object.keys(MATRIX))('renders objects valid against the Kubernetes schemas with the %s values', (name) => {
    const objects = rendered[name]!;
    expect(objects.length).toBeGreaterThan(5);
    const problems = objects.flatMap((object) => {
      if (UNCHECKED_KINDS.has(`${object.apiVersion}/${object.kind}`)) return [];
      const problem = kubernetesSchemaProblem(object);
      return problem ? [`${object.kind}/${object.metadata?.name}: ${problem}`] : [];
    });
    expect(problems).toEqual([]);
  });

  it('has a schema check that catches a broken object (so the matrix above can fail)', () => {
    const deployment = structuredClone(named(rendered['default']!, 'Deployment', 'edict-admission-controller'));
    (container(deployment) as unknown as { ports: Array<{ containerPort: unknown }> }).ports[0]!.containerPort =
      'https';
    expect(kubernetesSchemaProblem(deployment)).toContain('containerPort must be integer');
    expect(kubernetesSchemaProblem({ apiVersion: 'example.io/v1', kind: 'Widget' })).toBe(
      'unknown kind example.io/v1/Widget',
    );
  });

  it('refuses values its schema does not allow, naming them', () => {
    const negative = runHelm(['template', 'edict', CHART, '--set', 'admissionController.replicas=-1']);
    expect(negative.status).not.toBe(0);
    expect(negative.output).toContain('/admissionController/replicas');
    const unknown = runHelm(['template', 'edict', CHART, '--set', 'backgroundController.settings.genWorker=3']);
    expect(unknown.status).not.toBe(0);
    expect(unknown.output).toContain("additional properties 'genWorker' not allowed");
  });

  it('installs the four controllers, each its own Deployment, ServiceAccount and RBAC, rolled out 100% surge / 0 unavailable', () => {
    const objects = rendered['default']!;
    const components = ['admission-controller', 'background-controller', 'reports-controller', 'cleanup-controller'];
    for (const component of components) {
      const deployment = named(objects, 'Deployment', `edict-${component}`);
      const spec = deployment['spec'] as {
        strategy: unknown;
        template: { spec: { serviceAccountName: string; topologySpreadConstraints: unknown[] } };
      };
      expect(spec.strategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxSurge: '100%', maxUnavailable: 0 } });
      expect(spec.template.spec.serviceAccountName).toBe(`edict-${component}`);
      expect(spec.template.spec.topologySpreadConstraints).toContainEqual(
        expect.objectContaining({ topologyKey: 'topology.kubernetes.io/zone' }),
      );
      const main = container(deployment);
      expect(main.args).toEqual([component]);
      // Kyverno's probe paths.
      expect(main.livenessProbe.httpGet.path).toBe('/health/liveness');
      expect(main.readinessProbe.httpGet.path).toBe('/health/readiness');
      expect(main.resources.requests['memory']).toBeDefined();
      expect(main.resources.limits['memory']).toBeDefined();
      expect(main.securityContext).toMatchObject({ readOnlyRootFilesystem: true, runAsNonRoot: true });
      named(objects, 'ServiceAccount', `edict-${component}`);
      named(objects, 'ClusterRole', `edict:${component}:core`);
      named(objects, 'Role', `edict:${component}`);
      named(objects, 'PodDisruptionBudget', `edict-${component}`);
      named(objects, 'Service', `edict-${component}-metrics`);
    }
    // The webhook Services carry the names the controllers publish in their webhook configurations.
    expect(named(objects, 'Service', 'edict-svc')['spec']).toMatchObject({
      ports: [{ port: 443, targetPort: 'https' }],
    });
    named(objects, 'Service', 'edict-cleanup-controller');
    expect(env(named(objects, 'Deployment', 'edict-admission-controller'))).toMatchObject({
      EDICT_INSTALL_NAME: 'edict',
      EDICT_SERVICE_NAME: 'edict-svc',
      EDICT_DEPLOYMENT_NAME: 'edict-admission-controller',
      EDICT_BACKGROUND_USERNAME: 'system:serviceaccount:edict:edict-background-controller',
      EDICT_REPORTS_USERNAME: 'system:serviceaccount:edict:edict-reports-controller',
      EDICT_OMIT_EVENTS: 'PolicyApplied,PolicySkipped',
      EDICT_ADMISSION_REPORTS: 'true',
      EDICT_FORCE_FAILURE_POLICY_IGNORE: 'false',
    });
    // The CRDs are templates (crds.install), so helm upgrade updates them; crds.install=false leaves them out.
    expect(ofKind(objects, 'CustomResourceDefinition')).toHaveLength(readdirSync(join(CHART, 'files', 'crds')).length);
    expect(ofKind(rendered['features off']!, 'CustomResourceDefinition')).toEqual([]);
  });

  it('admits ingress to each controller only on its serving and metrics ports, by default from anywhere', () => {
    const objects = rendered['default']!;
    const ports = {
      'admission-controller': ['https', 'metrics'],
      'background-controller': ['http'],
      'reports-controller': ['http'],
      'cleanup-controller': ['https', 'metrics'],
    };
    for (const [component, names] of Object.entries(ports)) {
      const policy = named(objects, 'NetworkPolicy', `edict-${component}`);
      expect(policy['spec']).toEqual({
        podSelector: {
          matchLabels: {
            'app.kubernetes.io/component': component,
            'app.kubernetes.io/instance': 'edict',
            'app.kubernetes.io/part-of': 'edict',
          },
        },
        policyTypes: ['Ingress'],
        ingress: [{ ports: names.map((port) => ({ protocol: 'TCP', port })) }],
      });
      // The port it admits is the one the container serves.
      const served = (
        container(named(objects, 'Deployment', `edict-${component}`)) as unknown as {
          ports: Array<{ name: string }>;
        }
      ).ports.map((p) => p.name);
      expect(served).toEqual(names);
    }
  });

  it("serves metrics over plain HTTP on Kyverno's metering port, and ships the Grafana dashboard behind grafana.enabled", () => {
    const objects = renderChart([
      '--set',
      'admissionController.serviceMonitor.enabled=true',
      '--set',
      'grafana.enabled=true',
      '--set',
      'grafana.grafanaDashboard.create=true',
      '--set',
      'cleanupController.metering.disabled=true',
    ]);
    expect(named(objects, 'Service', 'edict-admission-controller-metrics')['spec']).toMatchObject({
      ports: [{ name: 'metrics-port', port: 8000, targetPort: 'metrics' }],
    });
    expect(named(objects, 'Service', 'edict-reports-controller-metrics')['spec']).toMatchObject({
      ports: [{ name: 'metrics-port', port: 8000, targetPort: 'http' }],
    });
    const endpoint = (
      named(objects, 'ServiceMonitor', 'edict-admission-controller')['spec'] as { endpoints: unknown[] }
    ).endpoints[0];
    expect(endpoint).toMatchObject({ port: 'metrics-port', path: '/metrics', scheme: 'http' });
    expect(endpoint).not.toHaveProperty('tlsConfig');
    expect(env(named(objects, 'Deployment', 'edict-admission-controller'))).toMatchObject({
      EDICT_METRICS_PORT: '8000',
    });
    expect(env(named(objects, 'Deployment', 'edict-cleanup-controller'))).toMatchObject({
      EDICT_DISABLE_METRICS: 'true',
    });
    expect(objects.some((o) => o.kind === 'Service' && o.metadata.name === 'edict-cleanup-controller-metrics')).toBe(
      false,
    );
    const dashboard = named(objects, 'ConfigMap', 'edict-grafana');
    expect(dashboard.metadata.labels).toMatchObject({ grafana_dashboard: '1' });
    const json = JSON.parse((dashboard['data'] as Record<string, string>)['edict-dashboard.json']!) as {
      panels: unknown[];
    };
    expect(json.panels.length).toBeGreaterThan(10);
    expect(named(objects, 'GrafanaDashboard', 'edict-grafana-edict-dashboard')['spec']).toMatchObject({
      configMapRef: { name: 'edict-grafana', key: 'edict-dashboard.json' },
    });
    // Edict exports Prometheus metrics only: an OpenTelemetry collector setting is refused, not ignored.
    const grpc = runHelm(['template', 'edict', CHART, '--set', 'admissionController.metering.config=grpc']);
    expect(grpc.status).not.toBe(0);
    expect(grpc.output).toContain('metering');
  });

  it("renders Kyverno's metricsConfig as the kyverno-metrics ConfigMap the controllers read, and the metrics Service and ServiceMonitor values", () => {
    const objects = renderChart([
      '--set-json',
      'metricsConfig.namespaces={"include":["team-a","team-b"],"exclude":["team-b"]}',
      '--set',
      'metricsConfig.metricsRefreshInterval=24h,metricsConfig.annotations.owner=ops',
      '--set-json',
      'metricsConfig.bucketBoundaries=[0.01,0.5,2]',
      '--set-json',
      'metricsConfig.metricsExposure={"kyverno_policy_results_total":{"disabledLabelDimensions":["resource_namespace"]},"kyverno_admission_requests":{"enabled":false}}',
      '--set',
      'admissionController.serviceMonitor.enabled=true,admissionController.serviceMonitor.additionalAnnotations.team=policy',
      '--set',
      'admissionController.metricsService.trafficDistribution=PreferClose',
    ]);
    const configMap = named(objects, 'ConfigMap', 'edict-metrics');
    expect(configMap.metadata.annotations).toEqual({ owner: 'ops' });
    // What a controller makes of it: the same parser it runs at startup.
    const configuration = new MetricsConfiguration(configMap['data'] as Record<string, string>, (problem) => {
      throw new Error(problem);
    });
    expect(configuration.checkNamespace('team-a')).toBe(true);
    expect(configuration.checkNamespace('team-b')).toBe(false);
    expect(configuration.checkNamespace('default')).toBe(false);
    expect(configuration.refreshIntervalMs).toBe(24 * 3_600_000);
    expect(configuration.bucketBoundaries).toEqual([0.01, 0.5, 2]);
    expect(configuration.exposure('kyverno_policy_results_total')?.disabledLabelDimensions).toEqual([
      'resource_namespace',
    ]);
    expect(configuration.enabled('kyverno_admission_requests_total')).toBe(false);
    for (const component of ['admission', 'background', 'reports', 'cleanup'])
      expect(env(named(objects, 'Deployment', `edict-${component}-controller`))).toMatchObject({
        EDICT_METRICS_CONFIGMAP: 'edict-metrics',
      });
    expect(named(objects, 'Service', 'edict-admission-controller-metrics')['spec']).toMatchObject({
      trafficDistribution: 'PreferClose',
    });
    expect(named(objects, 'Service', 'edict-reports-controller-metrics')['spec']).not.toHaveProperty(
      'trafficDistribution',
    );
    expect(named(objects, 'ServiceMonitor', 'edict-admission-controller').metadata.annotations).toEqual({
      team: 'policy',
    });
  }, 120_000);

  it("renders Kyverno's metricsConfig defaults, and needs a name for a kyverno-metrics ConfigMap made apart", () => {
    const defaults = named(rendered['default']!, 'ConfigMap', 'edict-metrics')['data'] as Record<string, string>;
    const parsed = new MetricsConfiguration(defaults);
    expect(parsed.includeNamespaces).toEqual([]);
    expect(parsed.excludeNamespaces).toEqual([]);
    expect(parsed.bucketBoundaries).toEqual(MetricsConfiguration.DEFAULT.bucketBoundaries);
    expect(parsed.refreshIntervalMs).toBe(0);
    // A ConfigMap made apart is named; without a name the chart stops, as Kyverno's.
    const apart = renderChart(['--set', 'metricsConfig.create=false,metricsConfig.name=shared-metrics']);
    expect(apart.some((o) => o.kind === 'ConfigMap' && o.metadata.name.endsWith('metrics'))).toBe(false);
    expect(env(named(apart, 'Deployment', 'edict-admission-controller'))).toMatchObject({
      EDICT_METRICS_CONFIGMAP: 'shared-metrics',
    });
    const unnamed = runHelm(['template', 'edict', CHART, '--set', 'metricsConfig.create=false']);
    expect(unnamed.status).not.toBe(0);
    expect(unnamed.output).toContain('metricsConfig.name is required');
    // Past Edict's bounds, the schema refuses.
    const tooMany = runHelm([
      'template',
      'edict',
      CHART,
      '--set-json',
      `metricsConfig.bucketBoundaries=${JSON.stringify(Array.from({ length: 65 }, (_, i) => i + 1))}`,
    ]);
    expect(tooMany.status).not.toBe(0);
  }, 120_000);

  it("admits only the ingressFrom peers when given (Kyverno's value names), and none is rendered when turned off", () => {
    const policy = named(rendered['custom names']!, 'NetworkPolicy', 'acme-admission-controller');
    expect((policy['spec'] as { ingress: unknown }).ingress).toEqual([
      {
        ports: [
          { protocol: 'TCP', port: 'https' },
          { protocol: 'TCP', port: 'metrics' },
        ],
        from: [
          { ipBlock: { cidr: '10.0.0.0/24' } },
          { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } },
        ],
      },
    ]);
    expect(ofKind(rendered['features off']!, 'NetworkPolicy')).toEqual([]);
    const misspelt = runHelm([
      'template',
      'edict',
      CHART,
      '--set-json',
      'admissionController.networkPolicy.ingressFrom=[{"podSelectr":{}}]',
    ]);
    expect(misspelt.status).not.toBe(0);
    expect(misspelt.output).toContain("additional properties 'podSelectr' not allowed");
  });

  it('aggregates ClusterRoles for the kinds policies manage into each controller role, as Kyverno does', () => {
    const role = named(rendered['default']!, 'ClusterRole', 'edict:background-controller');
    expect(role['aggregationRule']).toEqual({
      clusterRoleSelectors: [
        { matchLabels: { 'rbac.kyverno.io/aggregate-to-background-controller': 'true' } },
        {
          matchLabels: {
            'app.kubernetes.io/component': 'background-controller',
            'app.kubernetes.io/instance': 'edict',
            'app.kubernetes.io/part-of': 'edict',
          },
        },
      ],
    });
    const extra = named(rendered['custom names']!, 'ClusterRole', 'acme:cleanup-controller:additional');
    expect(extra['metadata']?.labels?.['app.kubernetes.io/component']).toBe('cleanup-controller');
    expect(extra['rules']).toEqual([{ apiGroups: [''], resources: ['pods'], verbs: ['delete', 'list', 'watch'] }]);
  });

  it('gives the admission controller time to finish its shutdown before the kubelet kills it', () => {
    // Unready for the shutdown delay, then the after-admission drain, then the review workers' drain
    // (each up to drainTimeoutMs); a kill before that loses queued audits and the Lease release.
    const defaults = new ControllerConfig();
    const deployment = named(rendered['default']!, 'Deployment', 'edict-admission-controller');
    const grace = (deployment['spec'] as { template: { spec: { terminationGracePeriodSeconds: number } } }).template
      .spec.terminationGracePeriodSeconds;
    expect(grace * 1000).toBeGreaterThan(defaults.shutdownDelayMs + 2 * defaults.drainTimeoutMs);
  });

  it('runs 3 admission controller replicas with the HA values', () => {
    const objects = rendered['HA']!;
    expect(named(objects, 'Deployment', 'edict-admission-controller')['spec']).toMatchObject({ replicas: 3 });
    expect(named(objects, 'PodDisruptionBudget', 'edict-admission-controller')['spec']).toMatchObject({
      maxUnavailable: 1,
    });
  });

  it('leaves out what is turned off', () => {
    const objects = rendered['features off']!;
    expect(ofKind(objects, 'Deployment').map((d) => d.metadata?.name)).toEqual(['edict-admission-controller']);
    expect(ofKind(objects, 'ConfigMap')).toEqual([]);
    expect(ofKind(objects, 'Job')).toEqual([]);
    expect(ofKind(objects, 'PodDisruptionBudget')).toEqual([]);
    expect(objects.filter((o) => o.metadata?.name?.endsWith('-metrics'))).toEqual([]);
    const admissionEnv = env(named(objects, 'Deployment', 'edict-admission-controller'));
    expect(admissionEnv).not.toHaveProperty('EDICT_BACKGROUND_USERNAME');
    expect(admissionEnv).not.toHaveProperty('EDICT_REPORTS_USERNAME');
    expect(admissionEnv).not.toHaveProperty('EDICT_OMIT_EVENTS');
    expect(admissionEnv['EDICT_ADMISSION_REPORTS']).toBe('false');
    expect(admissionEnv['EDICT_FORCE_FAILURE_POLICY_IGNORE']).toBe('true');
  });

  it("maps Kyverno's tracing and logging values to each controller's settings", () => {
    const objects = rendered['tracing and JSON logs']!;
    expect(env(named(objects, 'Deployment', 'edict-admission-controller'))).toMatchObject({
      EDICT_ENABLE_TRACING: 'true',
      EDICT_TRACING_ADDRESS: 'otel.observability',
      EDICT_TRACING_PORT: '4317',
      EDICT_TRACING_CREDS: 'otel-ca',
      EDICT_LOGGING_FORMAT: 'json',
      EDICT_VERBOSITY: '4',
    });
    const background = env(named(objects, 'Deployment', 'edict-background-controller'));
    expect(background).toMatchObject({ EDICT_LOGGING_FORMAT: 'json', EDICT_VERBOSITY: '4' });
    expect(background).not.toHaveProperty('EDICT_ENABLE_TRACING');
    expect(env(named(rendered['default']!, 'Deployment', 'edict-admission-controller'))).toMatchObject({
      EDICT_LOGGING_FORMAT: 'text',
      EDICT_VERBOSITY: '2',
    });
  });

  it('derives every name from the install name and places everything in the chosen namespace', () => {
    const objects = rendered['custom names']!;
    for (const object of objects) {
      if (object.metadata?.namespace !== undefined) expect(object.metadata.namespace).toBe('policy');
      // CRD names are fixed by their group and plural.
      if (object.kind !== 'CustomResourceDefinition') expect(object.metadata?.name).toMatch(/^acme/);
    }
    const admission = named(objects, 'Deployment', 'acme-admission-controller');
    expect(container(admission).image).toBe('registry.example/edict-policy/edict:1.2.3');
    expect(env(admission)).toMatchObject({
      EDICT_INSTALL_NAME: 'acme',
      EDICT_CONFIGMAP: 'acme-config',
      EDICT_SERVICE_NAME: 'acme-svc',
      EDICT_EXCEPTION_NAMESPACES: 'exceptions',
    });
    expect(named(objects, 'ClusterRoleBinding', 'acme:admission-controller')['subjects']).toEqual([
      { kind: 'ServiceAccount', name: 'acme-webhooks', namespace: 'policy' },
    ]);
    // Settings become the controllers' own variables.
    expect(env(named(objects, 'Deployment', 'acme-background-controller'))['EDICT_GEN_WORKERS']).toBe('4');
    expect(env(named(objects, 'Deployment', 'acme-reports-controller'))['EDICT_BACKGROUND_SCAN']).toBe('false');
    // Kyverno's two native policy report flags reach the reports controller (defaults: validating on, mutating off).
    expect(env(named(objects, 'Deployment', 'acme-reports-controller'))).toMatchObject({
      EDICT_VALIDATING_ADMISSION_POLICY_REPORTS: 'false',
      EDICT_MUTATING_ADMISSION_POLICY_REPORTS: 'true',
    });
    expect(env(named(rendered['default']!, 'Deployment', 'edict-reports-controller'))).toMatchObject({
      EDICT_VALIDATING_ADMISSION_POLICY_REPORTS: 'true',
      EDICT_MUTATING_ADMISSION_POLICY_REPORTS: 'false',
    });
    // Kyverno's report switches: openreports.enabled, features.aggregateReports/policyReports and
    // features.reporting.allowedResults (the types set true), with Kyverno's defaults otherwise.
    expect(env(named(objects, 'Deployment', 'acme-reports-controller'))).toMatchObject({
      EDICT_OPENREPORTS_ENABLED: 'true',
      EDICT_AGGREGATE_REPORTS: 'false',
      EDICT_POLICY_REPORTS: 'false',
      EDICT_ALLOWED_RESULTS: 'fail,warn',
    });
    // The admission controller filters its admission reports alike (Kyverno passes --allowedResults to both).
    expect(env(named(objects, 'Deployment', 'acme-admission-controller'))).toMatchObject({
      EDICT_ALLOWED_RESULTS: 'fail,warn',
    });
    expect(env(named(rendered['default']!, 'Deployment', 'edict-reports-controller'))).toMatchObject({
      EDICT_OPENREPORTS_ENABLED: 'false',
      EDICT_AGGREGATE_REPORTS: 'true',
      EDICT_POLICY_REPORTS: 'true',
      EDICT_ALLOWED_RESULTS: '',
    });
    expect(ofKind(objects, 'ServiceMonitor').map((o) => o.metadata?.name)).toEqual([
      'acme-admission-controller',
      'acme-reports-controller',
    ]);
  });

  it('cleans the webhook configurations on uninstall: scale to zero, wait for the Pods, then delete', () => {
    const objects = rendered['default']!;
    const job = named(objects, 'Job', 'edict-clean-webhooks');
    expect(job.metadata?.annotations?.['helm.sh/hook']).toBe('pre-delete');
    const pod = (
      job['spec'] as unknown as { template: { spec: { initContainers: Container[]; containers: Container[] } } }
    ).template.spec;
    const commands = [...pod.initContainers, ...pod.containers].map(
      (c) => (c as unknown as { command: string[] }).command,
    );
    expect(commands[0]).toEqual(
      expect.arrayContaining([
        'scale',
        '--replicas=0',
        'deployment/edict-admission-controller',
        'deployment/edict-cleanup-controller',
      ]),
    );
    expect(commands[1]).toEqual(expect.arrayContaining(['wait', '--for=delete']));
    expect(commands[2]).toEqual(
      expect.arrayContaining([
        'delete',
        'validatingwebhookconfigurations,mutatingwebhookconfigurations',
        '--selector=webhook.edict.io/managed-by=edict',
      ]),
    );
    // Its RBAC exists before it runs (hooks of a lower weight) and only for it.
    const role = named(objects, 'ClusterRole', 'edict:clean-webhooks');
    expect(role.metadata?.annotations?.['helm.sh/hook-weight']).toBe('-10');
  });
});
