/**
 * The local cluster's kubeconfig and the CA beside it (`ca.crt`). They live as long as the cluster:
 * a file from a run that crashed is removed when the next one starts (kubectl then finds no
 * cluster instead of a dead one or a CA that no longer matches), and the files this process wrote
 * are removed when it stops. A file another process has written since (a second `npm start` with
 * the same EDICT_KUBECONFIG) is left alone.
 */
import { readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

export class KubeconfigFiles {
  readonly kubeconfigPath: string;
  readonly caPath: string;
  private readonly written = new Map<string, string>();

  constructor(kubeconfigPath: string) {
    this.kubeconfigPath = resolve(kubeconfigPath);
    this.caPath = join(dirname(this.kubeconfigPath), 'ca.crt');
  }

  /** Removes the files an earlier run left behind; returns the ones it removed. */
  removeStale(): string[] {
    const stale = [this.kubeconfigPath, this.caPath].filter((path) => readOrUndefined(path) !== undefined);
    for (const path of stale) rmSync(path, { force: true });
    return stale;
  }

  write(kubeconfig: string, caPem: string): void {
    mkdirSync(dirname(this.kubeconfigPath), { recursive: true });
    writeFileSync(this.kubeconfigPath, kubeconfig, { mode: 0o600 });
    writeFileSync(this.caPath, caPem);
    this.written.set(this.kubeconfigPath, kubeconfig);
    this.written.set(this.caPath, caPem);
  }

  /** Removes the files this process wrote, unless they have been rewritten since. Synchronous: safe on exit. */
  remove(): void {
    for (const [path, content] of this.written) {
      if (readOrUndefined(path) === content) rmSync(path, { force: true });
    }
    this.written.clear();
  }
}

function readOrUndefined(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
