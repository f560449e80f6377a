/**
 * Admission load straight at the webhook Service (`--load reviews`, the default): each round stores
 * its Pods directly in the API server, then the review load's child process sends their CREATE
 * reviews through the API server's webhook client at a fixed rate (review-load-child.ts). Pods whose
 * review did not admit them are removed afterwards, as a failed create never stores its object,
 * so the reports settled on are those of admitted Pods only.
 */
import { BenchChild } from '../child-process';
import type { ChaosCluster } from './chaos-cluster';
import type { LoadTally } from './fixed-rate-sender';
import type { ReviewLoadInput, ReviewRound, ReviewRoundTally } from './review-load-child';

export const REVIEW_LOAD_ROLE = 'chaos-review-load';

/** Pods stored per round beyond rate × seconds, so a round that runs long does not run dry. */
const SPARE_PODS = 1.2;

export class ReviewLoad {
  private rounds = 0;

  private constructor(
    private readonly cluster: ChaosCluster,
    private readonly child: BenchChild<unknown>,
    private readonly perSecond: number,
    private readonly seconds: number,
  ) {}

  static async start(cluster: ChaosCluster, perSecond: number, seconds: number): Promise<ReviewLoad> {
    const child = await BenchChild.start<unknown>(REVIEW_LOAD_ROLE, {
      apiServerUrl: cluster.url,
      balancerPort: cluster.balancerPort,
    } satisfies ReviewLoadInput);
    return new ReviewLoad(cluster, child, perSecond, seconds);
  }

  /** Stores this round's Pods, then starts their reviews. */
  async begin(): Promise<void> {
    const round = `r${this.rounds++}`;
    const count = Math.ceil(this.perSecond * this.seconds * SPARE_PODS);
    await this.cluster.api.call<number>('store-pods', { round, count });
    await this.child.call('begin', { round, perSecond: this.perSecond } satisfies ReviewRound);
  }

  /** Stops the round, removes the Pods it did not admit and returns its tally. */
  async finish(): Promise<LoadTally> {
    const { notAdmitted, ...tally } = await this.child.call<ReviewRoundTally>('finish');
    await this.cluster.api.call<number>('delete-pods', notAdmitted);
    return tally;
  }

  stop(): Promise<void> {
    return this.child.stop();
  }
}
