/**
 * The cost of a verifyImages rule in a review: one Pod CREATE (the admission suite's review, its
 * first container's image replaced by an image of a local registry) validated against the 17 PSS
 * policies, with and without a ClusterPolicy whose verifyImages rule checks that image's signature
 * (the mutating webhook's pass: verification, digest patch, annotation). With the verification
 * cache warm, the rule should add at most 0.2 ms; without it, each review pays the registry round
 * trips, measured on loopback (Debian's docker-registry, started for the bench) and counted.
 */
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import {
  Engine,
  VerificationCache,
  type CompiledPolicy,
  type ContextLoaders,
  type ImageVerificationLoader,
  type OciReader,
  type Policy,
  type ResourceRequest,
} from '@edict/engine';
import { cosignSign, type OciWriter } from '@edict/image-verify/testing';
import { pushTestImage, registryClientForTests, startLocalRegistry } from '@edict/registry/testing';
import { loadPssPolicies, requestFromReview, reviewText } from './admission-suite';
import { formatTable, measureInterleaved, pairedRatio, percentile, type Measurement } from './harness';

const FIXTURES = join(process.cwd(), 'test', 'e2e-image-verification', 'fixtures');
/** Reviews timed one by one against the registry (no cache), for the uncached figures. */
const UNCACHED_REVIEWS = 200;

export interface ImageVerificationSuite {
  /** How the image is signed and verified. */
  readonly signature: string;
  /** The review without the rule, and with it (verification cache warm), timed in the same rounds. */
  readonly without: Measurement;
  readonly cached: Measurement;
  /** The review with the rule and no verification cache: wall time per review, registry calls per review. */
  readonly uncached: { readonly medianMs: number; readonly p99Ms: number; readonly registryCalls: number };
  /** Wall time of one registry call on loopback (the uncached review's calls, one by one). */
  readonly callMs: number;
}

export async function runImageVerificationSuite(): Promise<ImageVerificationSuite> {
  const registry = await startLocalRegistry();
  const client = registryClientForTests({ registry: { cacheEntries: 0 } });
  try {
    const oci = client.oci();
    const repo = `${registry.host}/bench/checkout`;
    const { reference } = await pushTestImage(oci, repo, '2.14.1', { seed: 'bench' });
    const image = `${repo}:2.14.1`;
    const privateKeyPem = readFileSync(join(FIXTURES, 'cosign.key'), 'utf8');
    const publicKeyPem = readFileSync(join(FIXTURES, 'cosign.pub'), 'utf8');
    await cosignSign(oci as unknown as OciWriter, image, privateKeyPem);

    const counting = countingReader(oci as unknown as OciReader);
    const cache = new VerificationCache(1000, 3_600_000);
    const cachedEngine = new Engine({ loaders: imageLoaders({ oci: () => counting.reader, cache }) });
    const uncachedEngine = new Engine({ loaders: imageLoaders({ oci: () => counting.reader }) });
    const plain = new Engine();
    const text = reviewWithImage(reviewText(), image);
    const pss = loadPssPolicies(plain);
    const pssCached = loadPssPolicies(cachedEngine);
    const pssUncached = loadPssPolicies(uncachedEngine);
    const rule = cosignKeyPolicy(`${registry.host}/bench/*`, publicKeyPem);
    const ruleCached = cachedEngine.compile(rule);
    const ruleUncached = uncachedEngine.compile(rule);

    // Both must really verify: a review that errs or fails would time the wrong path.
    for (const [engine, policy] of [
      [cachedEngine, ruleCached],
      [uncachedEngine, ruleUncached],
    ] as const) {
      const response = await engine.verifyImages(policy, requestFromReview(JSON.parse(text)));
      const statuses = response.rules.map((rule) => rule.status);
      if (statuses.length === 0 || statuses.some((status) => status !== 'pass'))
        throw new Error(`bench: the image rule did not pass (${JSON.stringify(response.rules)}); signed ${reference}`);
    }

    const [without, cached] = (await measureInterleaved(
      [
        { name: `review: parse + ${pss.length} PSS policies`, call: () => review(plain, pss, undefined, text) },
        {
          name: `review + verifyImages (Cosign key, cached)`,
          call: () => review(cachedEngine, pssCached, ruleCached, text),
        },
      ],
      { batch: 10, rounds: 15, sliceMs: 200, warmupMs: 500 },
    )) as [Measurement, Measurement];

    const wall: number[] = [];
    counting.calls = 0;
    for (let index = 0; index < UNCACHED_REVIEWS; index++) {
      const start = performance.now();
      await review(uncachedEngine, pssUncached, ruleUncached, text);
      wall.push(performance.now() - start);
    }
    const registryCalls = counting.calls / UNCACHED_REVIEWS;
    const calls: number[] = [];
    for (let index = 0; index < UNCACHED_REVIEWS; index++) {
      const start = performance.now();
      await oci.resolve(repo, '2.14.1');
      calls.push(performance.now() - start);
    }
    wall.sort((a, b) => a - b);
    calls.sort((a, b) => a - b);
    return {
      signature: 'Cosign, public key in the policy',
      without,
      cached,
      uncached: { medianMs: percentile(wall, 0.5), p99Ms: percentile(wall, 0.99), registryCalls },
      callMs: percentile(calls, 0.5),
    };
  } finally {
    client.close();
    await registry.stop();
  }
}

async function review(
  engine: Engine,
  pss: readonly CompiledPolicy[],
  imageRule: CompiledPolicy | undefined,
  text: string,
): Promise<number> {
  const request: ResourceRequest = requestFromReview(JSON.parse(text));
  let rules = 0;
  if (imageRule) rules += (await engine.verifyImages(imageRule, request)).rules.length;
  for (const policy of pss) rules += (await engine.validate(policy, request)).rules.length;
  return rules;
}

function reviewWithImage(text: string, image: string): string {
  const parsed = JSON.parse(text) as { request: { object: { spec: { containers: Array<{ image: string }> } } } };
  parsed.request.object.spec.containers[0]!.image = image;
  return JSON.stringify(parsed);
}

/** Loaders with registry access for image rules only: the bench's policies read no other context. */
function imageLoaders(imageVerification: ImageVerificationLoader): ContextLoaders {
  const none = (): never => {
    throw new Error('bench: the image rule reads no other context');
  };
  return { configMap: none, apiCall: none, globalReference: none, imageRegistry: none, imageVerification };
}

function cosignKeyPolicy(imageReference: string, publicKeyPem: string): Policy {
  return {
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name: 'verify-shop-images' },
    spec: {
      webhookConfiguration: { failurePolicy: 'Fail' },
      rules: [
        {
          name: 'cosign-key',
          match: { any: [{ resources: { kinds: ['Pod'] } }] },
          verifyImages: [
            {
              imageReferences: [imageReference],
              failureAction: 'Enforce',
              attestors: [{ entries: [{ keys: { publicKeys: publicKeyPem, rekor: { ignoreTlog: true } } }] }],
            },
          ],
        },
      ],
    },
  };
}

/** A reader counting the registry calls made through it. */
function countingReader(inner: OciReader): { reader: OciReader; calls: number } {
  const counter = { calls: 0, reader: inner };
  counter.reader = {
    getManifest: (...args) => (counter.calls++, inner.getManifest(...args)),
    resolve: (...args) => (counter.calls++, inner.resolve(...args)),
    getBlob: (...args) => (counter.calls++, inner.getBlob(...args)),
    listReferrers: (...args) => (counter.calls++, inner.listReferrers(...args)),
  };
  return counter;
}

/** The rows (ratio to the review without the rule), then the added time and the uncached figures. */
export function formatImageVerificationSuite(suite: ImageVerificationSuite): string {
  const addedMs = (suite.cached.medianUs - suite.without.medianUs) / 1000;
  const { uncached } = suite;
  return [
    `One Pod CREATE review with a verifyImages rule (${suite.signature}), against a registry on loopback`,
    formatTable([suite.without, suite.cached], suite.without),
    `cached: ${pairedRatio(suite.cached, suite.without).toFixed(2)}x the review without the rule, ` +
      `${addedMs.toFixed(3)} ms added (CPU, median; target at most 0.2 ms)`,
    `uncached: ${uncached.medianMs.toFixed(2)} ms per review (p99 ${uncached.p99Ms.toFixed(2)} ms, wall), ` +
      `${uncached.registryCalls.toFixed(1)} registry calls per review, ${suite.callMs.toFixed(2)} ms per call (HEAD of a manifest, wall)`,
    '',
  ].join('\n');
}
