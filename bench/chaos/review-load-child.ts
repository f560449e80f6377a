/**
 * The review load's own process: it sends the CREATE AdmissionReviews of Pods already stored in the
 * API server through the API server's own webhook client (`WebhookAdmission`: the stored webhook
 * configurations, their CA bundle, the webhook Service through the balancer, kept-alive
 * connections), mutating webhooks then validating ones as a create does, at a fixed rate. The API
 * server's storage is out of the path, so the rate asked is what the replicas see. A review allowed
 * by every webhook is an admission; a denial or a failed call (under failurePolicy Fail) is a failure.
 */
import { request } from 'node:http';
import {
  DEFAULT_USER,
  ResourceRegistry,
  WebhookAdmission,
  type AdmissionAttributes,
  type ResourceType,
} from '@edict/apiserver';
import type { JsonObject } from '@edict/foundation';
import type { ChildRoleRunner } from '../child-process';
import { CHAOS_NAMESPACE, CHAOS_SERVICE, LOAD_NAMESPACE } from './cluster';
import { FixedRateSender, type LoadTally } from './fixed-rate-sender';

export interface ReviewLoadInput {
  apiServerUrl: string;
  balancerPort: number;
}

export interface ReviewRound {
  /** The `round` label of the stored Pods to review. */
  round: string;
  perSecond: number;
}

export interface ReviewRoundTally extends LoadTally {
  /** Pods whose review did not admit them (failed, or never sent): a real create would not have stored them. */
  notAdmitted: string[];
}

/** Configurations are read again this often, as the API server reads the stored ones on every request. */
const CONFIGURATION_REFRESH_MS = 2_000;

function getJson(apiServerUrl: string, path: string): Promise<JsonObject> {
  return new Promise((resolve, reject) => {
    const call = request(new URL(path, apiServerUrl), { timeout: 30_000 }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => {
        if (response.statusCode === 200) resolve(JSON.parse(body) as JsonObject);
        else reject(new Error(`GET ${path}: ${response.statusCode} ${body.slice(0, 300)}`));
      });
    });
    call.on('timeout', () => call.destroy(new Error(`GET ${path}: no answer within 30 s`)));
    call.on('error', reject);
    call.end();
  });
}

const items = (list: JsonObject) => (list.items as JsonObject[] | undefined) ?? [];

class ReviewSender {
  private mutating: JsonObject[] = [];
  private validating: JsonObject[] = [];
  private namespaceLabels: Record<string, string> | undefined;
  private readonly admission: WebhookAdmission;
  private readonly podType: ResourceType;
  private refresher: NodeJS.Timeout | undefined;
  private round: { sender: FixedRateSender; pods: JsonObject[]; admitted: Set<string> } | undefined;

  constructor(private readonly input: ReviewLoadInput) {
    this.admission = new WebhookAdmission(
      {
        mutatingConfigurations: () => this.mutating,
        validatingConfigurations: () => this.validating,
        namespaceLabels: (name) => (name === LOAD_NAMESPACE ? this.namespaceLabels : undefined),
        authorize: () => ({ allowed: true, denied: false, reason: '' }),
      },
      { [`${CHAOS_NAMESPACE}/${CHAOS_SERVICE}`]: `https://127.0.0.1:${input.balancerPort}` },
    );
    this.podType = new ResourceRegistry().findByKind('v1', 'Pod')!;
  }

  async start(): Promise<void> {
    await this.refresh();
    this.refresher = setInterval(() => void this.refresh().catch(() => undefined), CONFIGURATION_REFRESH_MS);
  }

  async begin({ round, perSecond }: ReviewRound): Promise<{ pods: number }> {
    if (this.round) throw new Error('a round is already running');
    const selector = encodeURIComponent(`round=${round}`);
    const pods = items(
      await getJson(this.input.apiServerUrl, `/api/v1/namespaces/${LOAD_NAMESPACE}/pods?labelSelector=${selector}`),
    );
    if (pods.length === 0) throw new Error(`no stored Pods labelled round=${round}`);
    const admitted = new Set<string>();
    let next = 0;
    const sender = new FixedRateSender(perSecond, pods.length, async () => {
      const pod = pods[next++]!;
      await this.review(pod);
      admitted.add((pod.metadata as JsonObject).name as string);
    });
    this.round = { sender, pods, admitted };
    sender.start();
    return { pods: pods.length };
  }

  async finish(): Promise<ReviewRoundTally> {
    const round = this.round;
    if (!round) throw new Error('no round is running');
    this.round = undefined;
    const tally = await round.sender.stop();
    const notAdmitted = round.pods
      .map((pod) => (pod.metadata as JsonObject).name as string)
      .filter((name) => !round.admitted.has(name));
    return { ...tally, notAdmitted };
  }

  stop(): void {
    clearInterval(this.refresher);
    this.admission.close();
  }

  /** One create's admission, as the API server runs it: mutating webhooks, then validating ones. */
  private async review(pod: JsonObject): Promise<void> {
    const metadata = pod.metadata as JsonObject;
    const attributes: AdmissionAttributes = {
      operation: 'CREATE',
      type: this.podType,
      subresource: '',
      name: metadata.name as string,
      namespace: LOAD_NAMESPACE,
      object: { apiVersion: 'v1', kind: 'Pod', ...pod },
      dryRun: false,
      options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' },
      userInfo: DEFAULT_USER,
    };
    const warnings: string[] = [];
    const mutated = await this.admission.mutate(attributes, warnings);
    await this.admission.validate({ ...attributes, object: mutated ?? attributes.object! }, warnings);
  }

  private async refresh(): Promise<void> {
    const url = this.input.apiServerUrl;
    const api = '/apis/admissionregistration.k8s.io/v1';
    const [mutating, validating, namespace] = await Promise.all([
      getJson(url, `${api}/mutatingwebhookconfigurations`),
      getJson(url, `${api}/validatingwebhookconfigurations`),
      getJson(url, `/api/v1/namespaces/${LOAD_NAMESPACE}`),
    ]);
    this.mutating = items(mutating);
    this.validating = items(validating);
    this.namespaceLabels = ((namespace.metadata as JsonObject).labels as Record<string, string> | undefined) ?? {};
  }
}

export const reviewLoad: ChildRoleRunner = {
  async start(input) {
    const sender = new ReviewSender(input as ReviewLoadInput);
    await sender.start();
    return {
      report: {},
      stop: async () => sender.stop(),
      commands: {
        begin: (round) => sender.begin(round as ReviewRound),
        finish: () => sender.finish(),
      },
    };
  },
};
