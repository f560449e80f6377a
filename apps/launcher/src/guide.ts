/**
 * What `npm start` prints once everything is ready: short, and every command exact (the launcher's
 * e2e spec runs them). The Pod commands are the README walkthrough's first steps.
 */

/** The example whose Pod commands the guide shows. */
export const GUIDE_POLICY = 'require-team-label';
/** Denied by `require-team-label` (no `team` label). */
export const DENIED_POD_COMMAND = 'kubectl run web --image=nginx:1.27';
/** The same Pod with the label: admitted. */
export const ADMITTED_POD_COMMAND = 'kubectl run web --image=nginx:1.27 --labels=team=web';

export interface LocalGuideFacts {
  readonly apiUrl: string;
  readonly webhookPort: number;
  readonly service: string;
  /** The other controllers' ports for /healthz, /readyz and /metrics (HTTP; the cleanup controller's HTTPS). */
  readonly backgroundPort: number;
  readonly reportsPort: number;
  readonly cleanupPort: number;
  readonly cleanupService: string;
  readonly kubeconfigPath: string;
  readonly caPath: string;
  /** False when the admin endpoints (and Swagger) are turned off. */
  readonly swagger: boolean;
  readonly policies: readonly string[];
  readonly rejected: ReadonlyArray<{ readonly source: string; readonly message: string }>;
}

export function localGuide(facts: LocalGuideFacts): string {
  const lines = [
    '',
    'Edict is running on a local in-memory Kubernetes API server (its state is gone when this stops).',
    `  API server  ${facts.apiUrl}`,
    `  webhooks    https://127.0.0.1:${facts.webhookPort} (as Service ${facts.service})`,
    `  background  http://127.0.0.1:${facts.backgroundPort}`,
    `  reports     http://127.0.0.1:${facts.reportsPort}`,
    `  cleanup     https://127.0.0.1:${facts.cleanupPort} (as Service ${facts.cleanupService})`,
    '  (each serves /healthz, /readyz and /metrics; the webhooks port is the admission controller)',
    `  policies    ${facts.policies.length > 0 ? facts.policies.join(', ') : 'none'}`,
    ...facts.rejected.map(({ source, message }) => `  rejected    ${source}: ${message}`),
    '',
    'In a second terminal:',
    `  export KUBECONFIG=${facts.kubeconfigPath}`,
  ];
  if (facts.policies.includes(GUIDE_POLICY)) {
    const width = Math.max(DENIED_POD_COMMAND.length, ADMITTED_POD_COMMAND.length) + 2;
    lines.push(
      `  ${DENIED_POD_COMMAND.padEnd(width)}# denied by ${GUIDE_POLICY}`,
      `  ${ADMITTED_POD_COMMAND.padEnd(width)}# admitted`,
    );
  } else {
    lines.push('  kubectl apply -f <your policy.yaml>');
  }
  lines.push('');
  if (facts.swagger) {
    lines.push(`Swagger UI: https://127.0.0.1:${facts.webhookPort}/docs (self-signed; CA in ${facts.caPath})`);
  }
  lines.push('Ctrl-C stops everything.', '');
  return lines.join('\n');
}

export interface ClusterGuideFacts {
  readonly cluster: string;
  readonly server: string;
  readonly host: string;
  readonly webhookPort: number;
  readonly namespace: string;
  readonly service: string;
  readonly servicePort: number;
  readonly webhookUrl?: string;
}

export function clusterGuide(facts: ClusterGuideFacts): string {
  const reach = facts.webhookUrl
    ? [
        `The webhook configurations call ${facts.webhookUrl}: the API server must reach it, and its`,
        'host must be in the certificate (EDICT_CERT_DNS_NAMES or EDICT_CERT_IP_ADDRESSES).',
      ]
    : [
        `The webhook configurations call Service ${facts.namespace}/${facts.service} (port ${facts.servicePort}), which must`,
        `forward to this process on port ${facts.webhookPort}. Outside the cluster, set EDICT_WEBHOOK_URL to an`,
        'https:// address of this machine that the API server can reach, and put that host in',
        'EDICT_CERT_DNS_NAMES or EDICT_CERT_IP_ADDRESSES.',
      ];
  return [
    '',
    `Edict's admission controller is running against ${facts.server} (${facts.cluster}).`,
    `  webhooks    https://${facts.host}:${facts.webhookPort}`,
    ...reach.map((line) => `  ${line}`),
    'Ctrl-C stops it.',
    '',
  ].join('\n');
}
