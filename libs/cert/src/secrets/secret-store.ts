/**
 * The two Secrets as the renewer and the reader see them: decoded string data, labels,
 * annotations and the resourceVersion that makes every write optimistic.
 */
export interface StoredSecret {
  readonly name: string;
  readonly resourceVersion: string;
  readonly type?: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly data: Readonly<Record<string, string>>;
}

export interface SecretWrite {
  readonly name: string;
  readonly type: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly data: Readonly<Record<string, string>>;
}

/** Somebody else wrote first (create: already exists; replace: stale resourceVersion or gone). */
export class SecretConflictError extends Error {
  override readonly name = 'SecretConflictError';
}

/** Secret CRUD in the module's namespace. */
export interface SecretStore {
  read(name: string): Promise<StoredSecret | undefined>;
  /** Throws SecretConflictError when the Secret already exists. */
  create(secret: SecretWrite): Promise<StoredSecret>;
  /** Replaces the version read as `resourceVersion`; throws SecretConflictError when it moved on. */
  replace(secret: SecretWrite, resourceVersion: string): Promise<StoredSecret>;
}

/** Watches the module's Secrets; `onChange(name)` fires for every event on one of `names`. */
export interface SecretWatchSource {
  start(names: readonly string[], onChange: (name: string) => void): void;
  stop(): void;
}
