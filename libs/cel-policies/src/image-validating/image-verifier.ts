import { toCel, type CelImageVerifier } from '@edict/cel';
import {
  ImageVerificationError,
  parseImageRef,
  verifyImageAttestations,
  verifyImageSignatures,
  type OciReader,
  type VerifierSpec,
  type VerifyOptions,
} from '@edict/image-verify';
import { rootedVerifier } from '@edict/engine';
import { errorMessage, isObject, type EvaluationDeadline, type JsonObject, type JsonValue } from '@edict/foundation';
import { EvaluationError } from '@marcbachmann/cel-js';
import type { ImageVerificationRecord, IvpolPorts, OciAccessRequest } from './ports';
import type { Attestation, Attestor } from './types';
import { attestationRequest, verifierOf } from './verifiers';

/** What one policy's verifier needs for one evaluation. */
export interface PolicyImageVerifierSetup {
  /** Whether matchImageReferences select the image (images they do not select verify nothing: 0). */
  matches(image: string): boolean;
  /** The policy's attestor by name, its expressions evaluated (undefined: no such attestor). */
  attestor(name: string): Attestor | undefined | Promise<Attestor | undefined>;
  attestations: ReadonlyMap<string, Attestation>;
  ports: IvpolPorts | undefined;
  access: OciAccessRequest;
  /** Where an attestor's source.PullSecrets are read (the resource's namespace, or the policy's). */
  pullSecretsNamespace?: string;
  record: ImageVerificationRecord;
  deadline?: EvaluationDeadline;
  /** At most this many checks (image × attestor, and image data reads) in the evaluation. */
  maxVerifications: number;
}

/**
 * Kyverno's image verification functions for one policy on one request: counts of verifying
 * attestors, payloads of verified attestations, image data. Every registry read goes through the
 * caller's OciReader (per set of credentials) within the evaluation's deadline and a cap on checks;
 * a registry that cannot be read is a CEL error (failurePolicy decides), never a pass.
 */
export class PolicyImageVerifier implements CelImageVerifier {
  private checks = 0;
  private readonly readers = new Map<string, OciReader>();
  /** Verified in-toto statements (or referrer payloads) by image and attestation name. */
  private readonly payloads = new Map<string, JsonObject[]>();
  private readonly imageData = new Map<string, Promise<unknown>>();

  constructor(private readonly setup: PolicyImageVerifierSetup) {}

  async verifyImageSignatures(image: string, attestors: readonly unknown[]): Promise<bigint> {
    if (!this.setup.matches(image)) return 0n;
    const resolved = await this.attestors(attestors);
    let count = 0;
    for (const attestor of resolved) {
      this.spend(image);
      const verifier = await this.rooted(verifierOf(attestor));
      const result = await this.guard(image, () =>
        verifyImageSignatures(this.reader(attestor), image, verifier, this.options()),
      );
      if (result.verified) count++;
    }
    if (resolved.length > 0) this.setup.record.record(image, count > 0);
    return BigInt(count);
  }

  async verifyAttestationSignatures(image: string, name: string, attestors: readonly unknown[]): Promise<bigint> {
    if (!this.setup.matches(image)) return 0n;
    const attestation = this.setup.attestations.get(name);
    if (!attestation) throw new EvaluationError(`attestation not found in policy: ${name}`);
    const resolved = await this.attestors(attestors);
    let count = 0;
    for (const attestor of resolved) {
      this.spend(image);
      const request = attestationRequest(attestation, verifierOf(attestor));
      if ('error' in request) throw new EvaluationError(request.error);
      // Rooted once the request is known: a referrer read as a Sigstore bundle needs the root.
      const verifier = await this.rooted(request.verifier);
      const result = await this.guard(image, () =>
        verifyImageAttestations(this.reader(attestor), image, request.type, verifier, this.options()),
      );
      if (!result.verified) continue;
      count++;
      const key = payloadKey(image, name);
      if (!this.payloads.has(key)) this.payloads.set(key, result.statements);
    }
    if (resolved.length > 0) this.setup.record.record(image, count > 0);
    return BigInt(count);
  }

  extractPayload(image: string, name: string): unknown {
    const attestation = this.setup.attestations.get(name);
    if (!attestation) throw new EvaluationError(`attestation not found in policy: ${name}`);
    const statements = this.payloads.get(payloadKey(image, name));
    if (!statements || statements.length === 0) {
      throw new EvaluationError(
        `failed to get payload of attestation ${name} for image ${image}: it cannot be fetched before verifying (call verifyAttestationSignatures first)`,
      );
    }
    const statement = statements[0] as JsonObject;
    // In-toto statements hand their predicate; referrer artifacts their content.
    const payload = isObject(statement.predicate) ? statement.predicate : statement;
    return toCel(payload as JsonValue);
  }

  getImageData(image: string): Promise<unknown> {
    // One read per image and evaluation: expressions and messages often ask twice.
    let pending = this.imageData.get(image);
    if (!pending) {
      pending = this.readImageData(image);
      this.imageData.set(image, pending);
    }
    return pending;
  }

  private async readImageData(image: string): Promise<unknown> {
    this.spend(image);
    const ref = this.parse(image);
    const reader = this.readerFor(this.setup.access);
    return this.guard(image, async () => {
      const manifest = await reader.getManifest(ref.repo, ref.digest ?? ref.tag ?? 'latest');
      if (!manifest) throw new ImageVerificationError(`image ${image} was not found in its registry`);
      const config = isObject(manifest.json.config) ? manifest.json.config : undefined;
      let configJson: JsonValue | undefined;
      if (config && typeof config.digest === 'string') {
        const bytes = await reader.getBlob(ref.repo, config.digest, MAX_CONFIG_BYTES);
        configJson = JSON.parse(new TextDecoder().decode(bytes)) as JsonValue;
      }
      return toCel({
        image,
        resolvedImage: `${ref.repo}@${manifest.digest}`,
        registry: ref.registry,
        repository: ref.repository,
        identifier: ref.digest ?? ref.tag ?? '',
        tag: ref.tag ?? '',
        digest: manifest.digest,
        manifest: manifest.json,
        ...(configJson !== undefined ? { config: configJson } : {}),
      });
    });
  }

  /** The attestors a call names, by the `name` of each value of `attestors`; only the policy's own. */
  private async attestors(values: readonly unknown[]): Promise<Attestor[]> {
    const out: Attestor[] = [];
    for (const value of values) {
      const name = nameOf(value);
      const attestor = name === undefined ? undefined : await this.setup.attestor(name);
      if (!attestor) {
        throw new EvaluationError(
          `not an attestor of this policy: ${name === undefined ? typeof value : JSON.stringify(name)} (pass attestors.<name>)`,
        );
      }
      out.push(attestor);
    }
    return out;
  }

  /** The verifier with the controller's trusted root where it brings none of its own. */
  private rooted(verifier: VerifierSpec): Promise<VerifierSpec> {
    const ports = this.setup.ports;
    return rootedVerifier(verifier, ports?.trustedRoot ? () => ports.trustedRoot!() : undefined);
  }

  private spend(image: string): void {
    if (this.setup.deadline?.expired()) throw new EvaluationError('policy evaluation deadline exceeded');
    if (++this.checks > this.setup.maxVerifications) {
      throw new EvaluationError(
        `image verification of ${image}: more than ${this.setup.maxVerifications} signature, attestation and image data checks in one evaluation`,
      );
    }
  }

  private parse(image: string) {
    try {
      return parseImageRef(image);
    } catch (error) {
      throw new EvaluationError(errorMessage(error));
    }
  }

  private options(): VerifyOptions {
    const remaining = this.setup.deadline?.remainingMs?.();
    return {
      ...(this.setup.ports?.cache ? { cache: this.setup.ports.cache } : {}),
      ...(remaining !== undefined ? { deadline: Date.now() + Math.max(0, remaining) } : {}),
    };
  }

  /** A registry or trust-material failure is an error of the expression (failurePolicy decides). */
  private async guard<T>(image: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof EvaluationError) throw error;
      const cause = error instanceof ImageVerificationError ? error.message : errorMessage(error);
      throw new EvaluationError(`failed to verify image ${image}: ${cause}`);
    }
  }

  private reader(attestor: Attestor): OciReader {
    const pullSecrets = (attestor.cosign?.source?.PullSecrets ?? [])
      .map((secret) => secret?.name)
      .filter((name): name is string => typeof name === 'string' && name !== '');
    if (pullSecrets.length === 0) return this.readerFor(this.setup.access);
    return this.readerFor({
      ...this.setup.access,
      pullSecrets,
      ...(this.setup.pullSecretsNamespace !== undefined
        ? { pullSecretsNamespace: this.setup.pullSecretsNamespace }
        : {}),
    });
  }

  private readerFor(access: OciAccessRequest): OciReader {
    const ports = this.setup.ports;
    if (!ports)
      throw new EvaluationError('image verification is not configured: no registry access was given to Edict');
    const key = JSON.stringify(access);
    let reader = this.readers.get(key);
    if (!reader) {
      reader = ports.oci(access);
      this.readers.set(key, reader);
    }
    return reader;
  }
}

const MAX_CONFIG_BYTES = 2 * 1024 * 1024;

function payloadKey(image: string, attestation: string): string {
  return `${image}\u0000${attestation}`;
}

/** The name of an `attestors` value (a CEL map with `name`). */
function nameOf(value: unknown): string | undefined {
  if (value instanceof Map) {
    const name = value.get('name');
    return typeof name === 'string' ? name : undefined;
  }
  if (value && typeof value === 'object') {
    const name = (value as Record<string, unknown>).name;
    return typeof name === 'string' ? name : undefined;
  }
  return undefined;
}
