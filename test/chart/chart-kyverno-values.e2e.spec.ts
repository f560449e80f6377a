/**
 * The chart takes the Kyverno values teams set every day, with Kyverno's names and meanings: one
 * render with all of them (each checked for its effect, every object valid against Kubernetes'
 * schemas), and the values and flags Edict cannot honour refused with their reason.
 */
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { CHART, renderChart, runHelm, type RenderedObject } from './helm';
import { kubernetesSchemaProblem } from './kubernetes-schemas';

const ANTI_AFFINITY = {
  preferredDuringSchedulingIgnoredDuringExecution: [
    {
      weight: 1,
      podAffinityTerm: {
        labelSelector: { matchLabels: { 'app.kubernetes.io/component': 'admission-controller' } },
        topologyKey: 'kubernetes.io/hostname',
      },
    },
  ],
};

/** Kyverno's values, as a team migrating from Kyverno's chart writes them. */
const KYVERNO_VALUES = {
  customLabels: { team: 'platform' },
  global: {
    imagePullSecrets: ['global-pull'],
    extraEnvVars: [{ name: 'HTTPS_PROXY', value: 'http://proxy.example:3128' }],
  },
  imagePullSecrets: { regcred: { registry: 'registry.example', username: 'robot', password: 's3cret' } },
  existingImagePullSecrets: ['existing-regcred'],
  crds: { install: true, groups: { kyverno: { updaterequests: false } }, customLabels: { owner: 'platform' } },
  config: {
    excludeKyvernoNamespace: true,
    resourceFiltersExcludeNamespaces: ['kube-public'],
    resourceFiltersIncludeNamespaces: ['tenant-a'],
    webhooks: { namespaceSelector: { matchExpressions: [{ key: 'env', operator: 'In', values: ['prod'] }] } },
  },
  features: {
    backgroundScan: { enabled: false, backgroundScanWorkers: 3, backgroundScanInterval: '30m' },
    reporting: { validate: true, mutate: false, mutateExisting: true, imageVerify: false, generate: true },
    forceFailurePolicyIgnore: { enabled: true },
    policyExceptions: { enabled: true },
  },
  admissionController: {
    service: { type: 'NodePort', nodePort: 30443, trafficDistribution: 'PreferClose' },
    podDisruptionBudget: { unhealthyPodEvictionPolicy: 'AlwaysAllow' },
    annotations: { 'example.com/owner': 'platform' },
    revisionHistoryLimit: 3,
    hostNetwork: true,
    dnsPolicy: 'ClusterFirstWithHostNet',
    webhookServer: { port: 10250 },
    podAntiAffinity: ANTI_AFFINITY,
    container: {
      image: { registry: 'mirror.example', repository: 'policy/edict', tag: '9.9.9' },
      extraArgs: { maxAdmissionReports: 500, renewBefore: '24h', omitEvents: null },
      extraEnvVars: [{ name: 'EXTRA', value: '1' }],
    },
  },
  backgroundController: {
    image: { tag: '8.8.8' },
    extraArgs: { genWorkers: 7 },
    extraEnvVars: [{ name: 'FROM_VALUES', value: 'set' }],
    hostNetwork: true,
    antiAffinity: { enabled: false },
    podAntiAffinity: ANTI_AFFINITY,
  },
  reportsController: { extraArgs: { aggregationWorkers: 5 } },
};

const directory = mkdtempSync(join(tmpdir(), 'edict-kyverno-values-'));
const valuesFile = join(directory, 'kyverno-values.yaml');
writeFileSync(valuesFile, stringify(KYVERNO_VALUES));
const objects = renderChart(['-f', valuesFile]);

interface PodSpec {
  hostNetwork?: boolean;
  dnsPolicy?: string;
  affinity?: Record<string, unknown>;
  imagePullSecrets?: Array<{ name: string }>;
  containers: Array<{
    image: string;
    ports: Array<{ containerPort: number }>;
    env: Array<{ name: string; value?: string }>;
  }>;
}

function find(kind: string, name: string): RenderedObject {
  const found = objects.find((object) => object.kind === kind && object.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name}`);
  return found;
}
const pod = (component: string) =>
  (find('Deployment', `edict-${component}`) as unknown as { spec: { template: { spec: PodSpec } } }).spec.template.spec;
const env = (component: string) =>
  Object.fromEntries(pod(component).containers[0]!.env.map(({ name, value }) => [name, value]));

function refusal(args: readonly string[]): string {
  const { status, output } = runHelm(['template', 'edict', CHART, '--namespace', 'edict', ...args]);
  expect(status).not.toBe(0);
  return output;
}

describe("the chart with Kyverno's values", () => {
  it('passes helm lint --strict and renders objects valid against the Kubernetes schemas', () => {
    const { status, output } = runHelm(['lint', '--strict', CHART, '-f', valuesFile]);
    expect(status, output).toBe(0);
    const problems = objects.flatMap((object) => {
      if (object.kind === 'ServiceMonitor') return [];
      const problem = kubernetesSchemaProblem(object);
      return problem ? [`${object.kind}/${object.metadata.name}: ${problem}`] : [];
    });
    expect(problems).toEqual([]);
  });

  it('customLabels label every object, but no selector', () => {
    for (const object of objects.filter((o) => o.kind !== 'CustomResourceDefinition')) {
      expect(object.metadata.labels?.['team'], `${object.kind}/${object.metadata.name}`).toBe('platform');
    }
    const selector = (
      find('Deployment', 'edict-admission-controller') as unknown as {
        spec: { selector: { matchLabels: Record<string, string> } };
      }
    ).spec.selector.matchLabels;
    expect(selector).not.toHaveProperty('team');
  });

  it('config: the install namespace excluded from the resource filters and the webhooks, filters dropped and added', () => {
    const data = (find('ConfigMap', 'edict') as unknown as { data: Record<string, string> }).data;
    expect(data['resourceFilters']!.startsWith('[*/*,edict,*][Event,*,*]')).toBe(true);
    expect(data['resourceFilters']).not.toContain('kube-public');
    expect(data['resourceFilters']).toContain('[*/*,kube-system,*]');
    expect(data['resourceFilters']!.endsWith('[*/*,tenant-a,*]')).toBe(true);
    expect(JSON.parse(data['webhooks']!)).toEqual([
      {
        namespaceSelector: {
          matchExpressions: [
            { key: 'env', operator: 'In', values: ['prod'] },
            { key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['edict'] },
          ],
        },
      },
    ]);
    const without = renderChart(['--set', 'config.excludeKyvernoNamespace=false,crds.install=false']);
    const plain = (without.find((o) => o.kind === 'ConfigMap') as unknown as { data: Record<string, string> }).data;
    expect(plain['resourceFilters']).not.toContain('edict');
    expect(plain).not.toHaveProperty('webhooks');
  });

  it('features: background scans, reporting, failure policy, exceptions with no namespace (all namespaces)', () => {
    expect(env('reports-controller')).toMatchObject({
      EDICT_BACKGROUND_SCAN: 'false',
      EDICT_BACKGROUND_SCAN_WORKERS: '3',
      EDICT_BACKGROUND_SCAN_INTERVAL_MS: '1800000',
      EDICT_ENABLE_REPORTING: 'validate,mutateExisting,generate',
      EDICT_AGGREGATION_WORKERS: '5',
    });
    expect(env('background-controller')).toMatchObject({ EDICT_ENABLE_REPORTING: 'validate,mutateExisting,generate' });
    expect(env('admission-controller')).toMatchObject({
      EDICT_FORCE_FAILURE_POLICY_IGNORE: 'true',
      EDICT_EXCEPTION_NAMESPACES: '*',
    });
  });

  it('per-controller images, Kyverno flags as Edict variables, extra environment, host network and anti-affinity', () => {
    const admission = pod('admission-controller');
    expect(admission.containers[0]!.image).toBe('mirror.example/policy/edict:9.9.9');
    expect(pod('background-controller').containers[0]!.image).toBe('ghcr.io/edict-policy/edict:8.8.8');
    expect(pod('cleanup-controller').containers[0]!.image).toBe('ghcr.io/edict-policy/edict:0.1.0');
    expect(env('admission-controller')).toMatchObject({
      EDICT_MAX_ADMISSION_REPORTS: '500',
      EDICT_RENEW_BEFORE_MS: '86400000',
      EDICT_WEBHOOK_PORT: '10250',
      EXTRA: '1',
      HTTPS_PROXY: 'http://proxy.example:3128',
    });
    // A flag set to null is dropped, as in Kyverno's chart; omitEvents keeps the features value.
    expect(env('admission-controller')['EDICT_OMIT_EVENTS']).toBe('PolicyApplied,PolicySkipped');
    expect(env('background-controller')).toMatchObject({ EDICT_GEN_WORKERS: '7', FROM_VALUES: 'set' });
    expect(admission.hostNetwork).toBe(true);
    expect(admission.dnsPolicy).toBe('ClusterFirstWithHostNet');
    expect(admission.containers[0]!.ports[0]!.containerPort).toBe(10250);
    expect(admission.affinity).toEqual({ podAntiAffinity: ANTI_AFFINITY });
    expect(pod('background-controller').hostNetwork).toBe(true);
    expect(pod('background-controller').affinity).toBeUndefined();
  });

  it("the Deployment, its webhook Service and PodDisruptionBudget take Kyverno's values", () => {
    const deployment = find('Deployment', 'edict-admission-controller') as unknown as {
      metadata: { annotations: Record<string, string> };
      spec: { revisionHistoryLimit: number };
    };
    expect(deployment.metadata.annotations).toEqual({ 'example.com/owner': 'platform' });
    expect(deployment.spec.revisionHistoryLimit).toBe(3);
    expect(find('Service', 'edict-svc')['spec']).toMatchObject({
      type: 'NodePort',
      trafficDistribution: 'PreferClose',
      ports: [{ port: 443, nodePort: 30443 }],
    });
    expect(find('PodDisruptionBudget', 'edict-admission-controller')['spec']).toMatchObject({
      unhealthyPodEvictionPolicy: 'AlwaysAllow',
    });
  });

  it('pull secrets: global ones for the Pods; registry credentials as Secrets the controllers use', () => {
    for (const component of [
      'admission-controller',
      'background-controller',
      'reports-controller',
      'cleanup-controller',
    ]) {
      expect(pod(component).imagePullSecrets).toEqual([{ name: 'global-pull' }]);
      expect(env(component)['EDICT_IMAGE_PULL_SECRETS']).toBe('regcred,existing-regcred');
    }
    const secret = find('Secret', 'regcred') as unknown as { type: string; data: Record<string, string> };
    expect(secret.type).toBe('kubernetes.io/dockerconfigjson');
    expect(JSON.parse(Buffer.from(secret.data['.dockerconfigjson']!, 'base64').toString())).toEqual({
      auths: { 'registry.example': { auth: Buffer.from('robot:s3cret').toString('base64') } },
    });
  });

  it('crds: rendered (so upgraded), one left out by crds.groups, customLabels added', () => {
    const crds = objects.filter((o) => o.kind === 'CustomResourceDefinition');
    expect(crds).toHaveLength(readdirSync(join(CHART, 'files', 'crds')).length - 1);
    expect(crds.map((crd) => crd.metadata.name)).not.toContain('updaterequests.kyverno.io');
    for (const crd of crds) expect(crd.metadata.labels?.['owner']).toBe('platform');
  });

  it('refuses a Kyverno value Edict cannot honour, with the reason', () => {
    expect(refusal(['--set', 'admissionController.autoscaling.enabled=true'])).toContain(
      "admissionController.autoscaling is a Kyverno value Edict does not honour: Edict's chart renders no HorizontalPodAutoscaler",
    );
    expect(refusal(['--set', 'features.dumpPayload.enabled=true'])).toContain(
      'features.dumpPayload is a Kyverno value Edict does not honour',
    );
    // The value matching Edict's behaviour is accepted.
    expect(runHelm(['template', 'edict', CHART, '--set', 'features.dumpPayload.enabled=false']).status).toBe(0);
  });

  it('refuses a Kyverno flag Edict cannot honour, and a flag Kyverno does not have', () => {
    expect(refusal(['--set-json', 'admissionController.container.extraArgs={"profile":true}'])).toContain(
      "admissionController extraArgs: --profile is a Kyverno flag Edict does not honour: it starts Go's pprof profiler",
    );
    expect(refusal(['--set-json', 'cleanupController.extraArgs={"genWorkers":2}'])).toContain(
      "--genWorkers is not a flag of Kyverno's cleanup-controller",
    );
    expect(refusal(['--set', 'reportsController.extraArgs.backgroundScanInterval=soon'])).toContain(
      'is not a duration',
    );
  });
});
