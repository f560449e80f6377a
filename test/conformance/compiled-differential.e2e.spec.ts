/**
 * The compiled policies against the interpreter, which stays the reference: both run over the CLI
 * conformance corpus, over every policy × resource of the chainsaw suite, and over generated
 * requests (Pods against the PSS policies, and arbitrary policies and requests), and must give the
 * same results, messages and patched resources.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseAdmissionReview, toResourceRequest } from '@edict/admission';
import {
  Engine,
  loadPolicyDocuments,
  type CompiledPolicy,
  type Operation,
  type Policy,
  type ResourceRequest,
} from '@edict/engine';
import { type KubeObject } from '@edict/foundation';
import { runTests } from '@edict/kyverno-test';
import { admissionRequest } from '../fuzz/generators/admission-review';
import { policyDocument } from '../fuzz/generators/policy';
import { requireCorpusDir } from './corpus';

const compiled = new Engine({ compiledPolicies: true });
const interpreted = new Engine({ compiledPolicies: false });

/** Everything an admission evaluation answers: validate, mutate (with the patched object) and generate. */
async function answers(engine: Engine, policy: Policy, request: ResourceRequest): Promise<unknown> {
  const prepared: CompiledPolicy = engine.compile(policy);
  const settle = <T>(work: Promise<T>) => work.catch((error: Error) => `threw ${error.message}`);
  return {
    validate: await settle(engine.validate(prepared, request)),
    mutate: await settle(engine.mutate(prepared, request)),
    generate: await settle(engine.generate(prepared, request)),
  };
}

async function expectSameAnswers(policy: Policy, request: ResourceRequest): Promise<void> {
  // Each engine gets its own copy: nothing may depend on objects the other one touched.
  const copy = <T>(value: T): T => structuredClone(value);
  const [fromCompiled, fromInterpreter] = [
    await answers(compiled, copy(policy), copy(request)),
    await answers(interpreted, copy(policy), copy(request)),
  ];
  expect(fromCompiled, `${policy.metadata?.name} on ${request.resource?.kind}`).toEqual(fromInterpreter);
}

function requestFor(resource: KubeObject, operation: Operation): ResourceRequest {
  return operation === 'DELETE' ? { operation, oldResource: resource } : { operation, resource };
}

describe('compiled policies on the CLI conformance corpus', () => {
  it('give the interpreter’s results and messages on every test', { timeout: 600_000 }, async () => {
    const dir = requireCorpusDir();
    const run = (compiledPolicies: boolean) =>
      runTests([dir], { cwd: dir, engineFactory: (deps) => new Engine({ ...deps, compiledPolicies }) });
    const [withCompiler, withInterpreter] = [await run(true), await run(false)];
    expect(withCompiler.runs.length).toBeGreaterThan(100);
    expect(withCompiler).toEqual(withInterpreter);
  });
});

const chainsawDir = process.env.EDICT_CHAINSAW_DIR ?? resolve(__dirname, '../../../shared/chainsaw');

/** Folders holding YAML files, each with the policies and the other objects found there. */
function chainsawFolders(): { dir: string; policies: Policy[]; resources: KubeObject[] }[] {
  const folders: { dir: string; policies: Policy[]; resources: KubeObject[] }[] = [];
  const visit = (dir: string) => {
    const entries = readdirSync(dir);
    const policies: Policy[] = [];
    const resources: KubeObject[] = [];
    for (const entry of entries) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) visit(path);
      else if (/\.ya?ml$/.test(entry)) {
        const loaded = loadPolicyDocuments(readFileSync(path, 'utf8'), path);
        policies.push(...loaded.policies);
        for (const { value } of loaded.others) if (isResource(value)) resources.push(value);
      }
    }
    if (policies.length > 0 && resources.length > 0) folders.push({ dir, policies, resources });
  };
  visit(chainsawDir);
  return folders;
}

function isResource(value: unknown): value is KubeObject {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const object = value as Record<string, unknown>;
  return (
    typeof object.kind === 'string' &&
    typeof object.apiVersion === 'string' &&
    !object.apiVersion.startsWith('chainsaw.kyverno.io')
  );
}

describe('compiled policies on the chainsaw suite', () => {
  it('give the interpreter’s answers for every policy × resource of each test', { timeout: 600_000 }, async () => {
    expect(
      existsSync(chainsawDir),
      `Kyverno's chainsaw suite is not at ${chainsawDir}: put it at ../shared/chainsaw beside the repository, or set EDICT_CHAINSAW_DIR`,
    ).toBe(true);
    let evaluations = 0;
    for (const { policies, resources } of chainsawFolders()) {
      for (const policy of policies) {
        for (const resource of resources) {
          for (const operation of ['CREATE', 'DELETE'] as const) {
            await expectSameAnswers(policy, requestFor(resource, operation));
            evaluations++;
          }
        }
      }
    }
    expect(evaluations).toBeGreaterThan(1000);
  });
});

// The benchmark's 17 Pod Security policies beside the repository, or under $EDICT_SHARED_DIR (as the bench reads them).
const pssDir = resolve(process.env['EDICT_SHARED_DIR'] ?? resolve(__dirname, '../../../shared'), 'bench/pss');

/** A Pod with the fields the Pod Security policies look at, each set or not, to allowed or forbidden values. */
const securityContext = fc.record(
  {
    privileged: fc.boolean(),
    allowPrivilegeEscalation: fc.boolean(),
    runAsNonRoot: fc.boolean(),
    runAsUser: fc.constantFrom(0, 1000),
    procMount: fc.constantFrom('Default', 'Unmasked'),
    seccompProfile: fc.record({ type: fc.constantFrom('RuntimeDefault', 'Localhost', 'Unconfined') }),
    seLinuxOptions: fc.record(
      { type: fc.constantFrom('container_t', 'spc_t'), user: fc.constantFrom('', 'root') },
      { requiredKeys: [] },
    ),
    capabilities: fc.record(
      {
        add: fc.subarray(['NET_BIND_SERVICE', 'SYS_ADMIN', 'CHOWN', 'NET_RAW']),
        drop: fc.subarray(['ALL', 'NET_RAW']),
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: [] },
);
const container = fc.record(
  {
    name: fc.constantFrom('app', 'sidecar'),
    image: fc.constantFrom('nginx:1.27', 'registry.example.com/shop/app@sha256:' + 'a'.repeat(64)),
    securityContext,
    ports: fc.array(fc.record({ containerPort: fc.constantFrom(80, 8080), hostPort: fc.constantFrom(0, 80) }), {
      maxLength: 2,
    }),
  },
  { requiredKeys: ['name', 'image'] },
);
const podSpec = fc.record(
  {
    hostNetwork: fc.boolean(),
    hostPID: fc.boolean(),
    hostIPC: fc.boolean(),
    securityContext: fc.record(
      {
        runAsNonRoot: fc.boolean(),
        runAsUser: fc.constantFrom(0, 1000),
        seccompProfile: fc.record({ type: fc.constantFrom('RuntimeDefault', 'Unconfined') }),
        sysctls: fc.array(
          fc.record({ name: fc.constantFrom('kernel.shm_rmid_forced', 'net.core.somaxconn'), value: fc.constant('1') }),
          { maxLength: 2 },
        ),
      },
      { requiredKeys: [] },
    ),
    volumes: fc.array(
      fc.oneof(
        fc.record({ name: fc.constant('data'), emptyDir: fc.constant({}) }),
        fc.record({ name: fc.constant('host'), hostPath: fc.record({ path: fc.constant('/var') }) }),
        fc.record({ name: fc.constant('cfg'), configMap: fc.record({ name: fc.constant('cfg') }) }),
      ),
      { maxLength: 2 },
    ),
    containers: fc.array(container, { minLength: 1, maxLength: 2 }),
    initContainers: fc.array(container, { maxLength: 1 }),
    ephemeralContainers: fc.array(container, { maxLength: 1 }),
  },
  { requiredKeys: ['containers'] },
);
const annotations = fc.dictionary(
  fc.constantFrom('container.apparmor.security.beta.kubernetes.io/app', 'prometheus.io/scrape'),
  fc.constantFrom('runtime/default', 'unconfined', 'true'),
);
const workload = fc
  .record({ spec: podSpec, annotations, kind: fc.constantFrom('Pod', 'Deployment', 'CronJob') })
  .map(({ spec, annotations: podAnnotations, kind }): KubeObject => {
    const metadata = { name: 'generated', namespace: 'default', annotations: podAnnotations };
    if (kind === 'Pod') return { apiVersion: 'v1', kind, metadata, spec };
    const template = { metadata: { annotations: podAnnotations }, spec };
    if (kind === 'Deployment') return { apiVersion: 'apps/v1', kind, metadata, spec: { template } };
    return { apiVersion: 'batch/v1', kind, metadata, spec: { jobTemplate: { spec: { template } } } };
  });

describe('compiled PSS policies on generated workloads', () => {
  const policies = existsSync(pssDir)
    ? readdirSync(pssDir)
        .filter((file) => file.endsWith('.yaml'))
        .flatMap((file) => loadPolicyDocuments(readFileSync(join(pssDir, file), 'utf8'), file).policies)
    : [];

  it('give the interpreter’s results and messages', { timeout: 300_000 }, async () => {
    expect(
      existsSync(pssDir),
      `the Pod Security policies are not at ${pssDir}: put them at ../shared/bench/pss beside the repository, or set EDICT_SHARED_DIR`,
    ).toBe(true);
    expect(policies).toHaveLength(17);
    await fc.assert(
      fc.asyncProperty(
        workload,
        fc.constantFrom<Operation>('CREATE', 'UPDATE', 'DELETE'),
        async (resource, operation) => {
          const request: ResourceRequest =
            operation === 'UPDATE' ? { operation, resource, oldResource: resource } : requestFor(resource, operation);
          for (const policy of policies) await expectSameAnswers(policy, request);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('compiled arbitrary policies on arbitrary requests', () => {
  it('give the interpreter’s answers', { timeout: 300_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(policyDocument, admissionRequest, async (policy, request) => {
        const parsed = parseAdmissionReview({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request });
        if (!parsed.ok) return;
        let asPolicy: Policy;
        try {
          asPolicy = policy as unknown as Policy;
          compiled.compile(structuredClone(asPolicy));
        } catch {
          return; // the policy cache rejects what does not compile, with either engine
        }
        await expectSameAnswers(asPolicy, toResourceRequest(parsed.review.request));
      }),
      { numRuns: 300 },
    );
  });
});
