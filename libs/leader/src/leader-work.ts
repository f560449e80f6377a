/**
 * Starts and stops the registered LeaderAware members for one term of leadership: each gets its
 * own AbortSignal; stopping aborts them all and calls onStoppedLeading synchronously.
 */
import { LeadershipEndedError, type LeaderAware } from './leader-aware';
import type { StopReason } from './leader-elector';

type Report = (message: string, error: unknown) => void;

interface Running {
  readonly controller: AbortController;
  readonly done: Promise<void>;
}

export class LeaderWork {
  private readonly members = new Set<LeaderAware>();
  private running?: Map<LeaderAware, Running>;

  constructor(private readonly report: Report) {}

  get leading(): boolean {
    return this.running !== undefined;
  }

  /** Adds a member; starts it at once when a term is on. Returns a function that removes (and stops) it. */
  add(member: LeaderAware): () => void {
    if (this.members.has(member)) return () => this.remove(member);
    this.members.add(member);
    if (this.running) this.startMember(member);
    return () => this.remove(member);
  }

  startTerm(): void {
    if (this.running) return;
    this.running = new Map();
    for (const member of this.members) this.startMember(member);
  }

  /** Ends the term synchronously; the promise settles when the members' started work has. */
  stopTerm(reason: StopReason): Promise<void> {
    const running = this.running;
    this.running = undefined;
    if (!running) return Promise.resolve();
    for (const [member, { controller }] of running) this.stopMember(member, controller, reason);
    return Promise.all([...running.values()].map((entry) => entry.done)).then(() => undefined);
  }

  private remove(member: LeaderAware): void {
    this.members.delete(member);
    const entry = this.running?.get(member);
    if (!entry) return;
    this.running?.delete(member);
    this.stopMember(member, entry.controller, 'shutdown');
  }

  private startMember(member: LeaderAware): void {
    const controller = new AbortController();
    let done: Promise<void>;
    try {
      done = Promise.resolve(member.onStartedLeading(controller.signal)).then(
        () => undefined,
        (error: unknown) => {
          if (!controller.signal.aborted) this.report(`${nameOf(member)}.onStartedLeading failed`, error);
        },
      );
    } catch (error) {
      this.report(`${nameOf(member)}.onStartedLeading failed`, error);
      done = Promise.resolve();
    }
    this.running?.set(member, { controller, done });
  }

  private stopMember(member: LeaderAware, controller: AbortController, reason: StopReason): void {
    controller.abort(new LeadershipEndedError(reason));
    try {
      member.onStoppedLeading?.(reason);
    } catch (error) {
      this.report(`${nameOf(member)}.onStoppedLeading failed`, error);
    }
  }
}

function nameOf(member: LeaderAware): string {
  return (member as object).constructor?.name ?? 'LeaderAware';
}
