/** An in-process SecretStore with resourceVersions and 409s, for unit specs. */
import { SecretConflictError, type SecretStore, type SecretWrite, type StoredSecret } from '../secrets/secret-store';

export class MemorySecretStore implements SecretStore {
  private readonly secrets = new Map<string, StoredSecret>();
  private version = 0;
  /** Every successful write, in order (name@resourceVersion). */
  readonly writes: string[] = [];
  /** Called before each write; throw or mutate the store to simulate a racing writer. */
  beforeWrite?: (secret: SecretWrite) => void | Promise<void>;

  async read(name: string): Promise<StoredSecret | undefined> {
    return this.secrets.get(name);
  }

  async create(secret: SecretWrite): Promise<StoredSecret> {
    await this.beforeWrite?.(secret);
    if (this.secrets.has(secret.name)) throw new SecretConflictError(`secret ${secret.name} already exists`);
    return this.put(secret);
  }

  async replace(secret: SecretWrite, resourceVersion: string): Promise<StoredSecret> {
    await this.beforeWrite?.(secret);
    if (this.secrets.get(secret.name)?.resourceVersion !== resourceVersion) {
      throw new SecretConflictError(`secret ${secret.name} changed since ${resourceVersion}`);
    }
    return this.put(secret);
  }

  /** Writes without checks, as another actor would (a read Secret may be passed back edited). */
  put(secret: SecretWrite | StoredSecret): StoredSecret {
    const stored: StoredSecret = { ...secret, resourceVersion: String(++this.version) };
    this.secrets.set(secret.name, stored);
    this.writes.push(`${secret.name}@${stored.resourceVersion}`);
    return stored;
  }

  delete(name: string): void {
    this.secrets.delete(name);
  }
}
