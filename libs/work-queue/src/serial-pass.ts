/**
 * Runs an async pass one at a time: a call while a pass runs waits for it, then starts a fresh one
 * (what the running pass read may have changed meanwhile); callers that wait together share that
 * fresh pass. A failed pass rejects its callers only; the next call runs anew.
 */
export class SerialPass<T> {
  private running: Promise<T> | undefined;

  constructor(private readonly pass: () => Promise<T>) {}

  async run(): Promise<T> {
    while (this.running) {
      const current = this.running;
      await current.catch(() => undefined);
      if (this.running && this.running !== current) return this.running;
    }
    const pass = this.pass();
    this.running = pass;
    try {
      return await pass;
    } finally {
      if (this.running === pass) this.running = undefined;
    }
  }
}
