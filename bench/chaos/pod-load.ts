/**
 * Admission load through the API server, as users make it (`--load pods`): Pod creates (each a new
 * name from `generateName`) sent at a fixed rate over kept-alive connections, each answered after
 * the API server has called the webhooks. A create answered 201 was admitted; anything else (a
 * webhook call that failed under failurePolicy Fail, a timeout) is a failed admission. The API
 * server's own Pod storage bounds the rate here; `--load reviews` (review-load.ts) leaves it out.
 */
import { Agent, request } from 'node:http';
import { LOAD_NAMESPACE } from './cluster';
import { FixedRateSender, LoadRejection, MAX_IN_FLIGHT, type LoadTally } from './fixed-rate-sender';

const POD = JSON.stringify({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { generateName: 'load-', namespace: LOAD_NAMESPACE, labels: { app: 'chaos' } },
  spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
});

/** A kube Status body's message, or the body itself. */
function statusMessage(body: string): string {
  try {
    return (JSON.parse(body) as { message?: string }).message ?? body;
  } catch {
    return body;
  }
}

export class PodLoad {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: MAX_IN_FLIGHT });
  private readonly sender: FixedRateSender;

  constructor(
    private readonly apiServerUrl: string,
    perSecond: number,
  ) {
    this.sender = new FixedRateSender(perSecond, Number.POSITIVE_INFINITY, () => this.create());
  }

  async begin(): Promise<void> {
    this.sender.start();
  }

  /** Stops sending, waits for the answers still due and returns the tally. */
  async finish(): Promise<LoadTally> {
    const tally = await this.sender.stop();
    this.agent.destroy();
    return tally;
  }

  private create(): Promise<void> {
    const url = new URL(`/api/v1/namespaces/${LOAD_NAMESPACE}/pods`, this.apiServerUrl);
    return new Promise((resolve, reject) => {
      const call = request(
        url,
        { method: 'POST', agent: this.agent, headers: { 'content-type': 'application/json' }, timeout: 60_000 },
        (response) => {
          let body = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (body += chunk));
          response.on('end', () => {
            const status = response.statusCode ?? 0;
            if (status === 201) resolve();
            else reject(new LoadRejection(status, statusMessage(body)));
          });
        },
      );
      call.on('timeout', () => call.destroy(new Error('no answer within 60 s')));
      call.on('error', reject);
      call.end(POD);
    });
  }
}
