import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  admissionPatch,
  Engine,
  loadPolicyDocuments,
  type CompiledPolicy,
  type PolicyException,
  type ResourceRequest,
} from '@edict/engine';
import {
  compileMutatingPolicy,
  compileValidatingPolicy,
  evaluateMutatingPolicies,
  evaluateValidatingPolicy,
  type CompiledMutatingPolicy,
  type CompiledValidatingPolicy,
} from '@edict/cel-policies';
import { parseDocuments, type KubeObject } from '@edict/foundation';
import { startOtelTracing } from '@edict/tracing';
import { measureInterleaved, type Measurement } from './harness';
import { sharedDir } from './shared-dir';

export const FIXTURES = join(process.cwd(), 'bench', 'fixtures');
const REVIEW_FILE = join(FIXTURES, 'pod-create-review.json');

/** The 17 Pod Security policies Kyverno's published admission figures use. */
export function loadPssPolicies(engine: Engine): CompiledPolicy[] {
  const dir = join(sharedDir(), 'bench', 'pss');
  return readdirSync(dir)
    .filter((file) => file.endsWith('.yaml'))
    .flatMap((file) => loadPolicyFile(engine, join(dir, file)));
}

/**
 * The same 17 checks as ValidatingPolicies: Kyverno's pod-security-vpol where the shared corpus has
 * the check, the rest written for the bench (bench/fixtures/pss-vpol).
 */
export function loadPssValidatingPolicies(): CompiledValidatingPolicy[] {
  const corpus = join(sharedDir(), 'conformance-cel', 'policies', 'pod-security-vpol');
  const files = [
    ...['baseline', 'restricted'].flatMap((level) =>
      readdirSync(join(corpus, level)).map((check) => join(corpus, level, check, `${check}.yaml`)),
    ),
    ...readdirSync(join(FIXTURES, 'pss-vpol')).map((file) => join(FIXTURES, 'pss-vpol', file)),
  ];
  return files.map((file) => {
    const { documents, errors } = parseDocuments(readFileSync(file, 'utf8'), file);
    if (errors.length > 0 || documents.length !== 1) throw new Error(`${file}: not one ValidatingPolicy`);
    return compileValidatingPolicy(documents[0]!.value as KubeObject);
  });
}

/** The mutate row's four policies as MutatingPolicies (bench/fixtures/mutate-mpol.yaml). */
function loadMutatingPolicies(): CompiledMutatingPolicy[] {
  const file = join(FIXTURES, 'mutate-mpol.yaml');
  const { documents, errors } = parseDocuments(readFileSync(file, 'utf8'), file);
  if (errors.length > 0) throw new Error(`${file}: ${errors.map((error) => error.message).join('; ')}`);
  return documents.map((document) => compileMutatingPolicy(document.value as KubeObject));
}

export function loadPolicyFile(engine: Engine, file: string): CompiledPolicy[] {
  const { policies, errors } = loadPolicyDocuments(readFileSync(file, 'utf8'), file);
  if (errors.length > 0) throw new Error(`${file}: ${errors.map((error) => error.message).join('; ')}`);
  return policies.map((policy) => engine.compile(policy));
}

export function reviewText(): string {
  return readFileSync(REVIEW_FILE, 'utf8');
}

/** Builds the engine request from a parsed AdmissionReview, as the webhook will. */
export function requestFromReview(review: { request: Record<string, unknown> }): ResourceRequest {
  const request = review.request as {
    object: KubeObject;
    operation: ResourceRequest['operation'];
    userInfo: NonNullable<ResourceRequest['user']>['userInfo'];
  };
  return {
    resource: request.object,
    operation: request.operation,
    user: { userInfo: request.userInfo, roles: [], clusterRoles: [] },
    admissionRequest: review.request as ResourceRequest['admissionRequest'],
  };
}

const POD = { group: '', version: 'v1', resource: 'pods' };

async function validatingPolicyPipeline(policies: readonly CompiledValidatingPolicy[], text: string): Promise<number> {
  const request = requestFromReview(JSON.parse(text));
  let results = 0;
  for (const policy of policies) {
    const response = await evaluateValidatingPolicy(
      policy,
      { request, resource: POD, namespaceObject: null },
      { ports: {} },
    );
    results += response?.rules.length ?? 0;
  }
  return results;
}

/** Runs every mutate policy in order on the request's object, then builds the one admission patch. */
async function mutatePipeline(engine: Engine, policies: readonly CompiledPolicy[], text: string): Promise<number> {
  const request = requestFromReview(JSON.parse(text));
  const original = request.resource!;
  let current = original;
  for (const policy of policies) {
    const response = await engine.mutate(policy, { ...request, resource: current });
    current = response.patchedResource ?? current;
  }
  return admissionPatch(original, current).length;
}

/** The MutatingPolicies in admission order on the request's object: the patch of the whole chain. */
async function mutatingPolicyPipeline(policies: readonly CompiledMutatingPolicy[], text: string): Promise<number> {
  const request = requestFromReview(JSON.parse(text));
  const chain = await evaluateMutatingPolicies(
    policies,
    { request, resource: POD, namespaceObject: null },
    { ports: {} },
  );
  return chain.patches.length;
}

async function validatePipeline(engine: Engine, policies: readonly CompiledPolicy[], text: string): Promise<number> {
  const request = requestFromReview(JSON.parse(text));
  let rules = 0;
  for (const policy of policies) rules += (await engine.validate(policy, request)).rules.length;
  return rules;
}

/**
 * `EDICT_BENCH_PROFILE_VALIDATE=<seconds>`: runs only the compiled validate pipeline for that long,
 * so that a `node --cpu-prof` run profiles it alone, then JSON.parse of the review for a quarter of
 * it, prints the CPU time per run of each (steadier than wall time on a shared machine) and exits.
 */
async function profileValidate(
  engine: Engine,
  policies: readonly CompiledPolicy[],
  text: string,
  seconds: number,
): Promise<never> {
  const validate = await cpuMicrosPerRun(() => validatePipeline(engine, policies, text), seconds);
  const parse = await cpuMicrosPerRun(() => JSON.parse(text), seconds / 4);
  console.log(
    `CPU per run: validate compiled ${validate.toFixed(1)} µs, JSON.parse ${parse.toFixed(1)} µs ` +
      `(${(validate / parse).toFixed(2)}x)`,
  );
  process.exit(0);
}

async function cpuMicrosPerRun(call: () => unknown, seconds: number): Promise<number> {
  const end = performance.now() + seconds * 1000;
  const start = process.cpuUsage();
  let runs = 0;
  while (performance.now() < end) {
    const result = call();
    if (result instanceof Promise) await result;
    runs++;
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / runs;
}

/**
 * `count` policies as small as a validate policy gets: one rule for Pods with one deny condition
 * on one field of the request, which holds for none. They cost what every matched policy costs
 * before its rules' own work: the floor under the PSS rows.
 */
function oneConditionPolicies(engine: Engine, count: number): CompiledPolicy[] {
  return Array.from({ length: count }, (_, n) =>
    engine.compile({
      apiVersion: 'kyverno.io/v1',
      kind: 'ClusterPolicy',
      metadata: { name: `one-condition-${n}` },
      spec: {
        validationFailureAction: 'Audit',
        rules: [
          {
            name: 'name-is-set',
            match: { any: [{ resources: { kinds: ['Pod'] } }] },
            validate: {
              message: 'the Pod needs a name',
              deny: {
                conditions: { all: [{ key: '{{ request.object.metadata.name }}', operator: 'Equals', value: '' }] },
              },
            },
          },
        ],
      },
    }),
  );
}

/** PolicyExceptions in force for the exceptions row: a cluster's worth, none for the review's namespace. */
const EXCEPTIONS = 500;

/**
 * `count` exceptions spread over the policies, each for every rule of one policy and Pods in a
 * namespace of its own, as teams file them (`team-<n>`, which the review's Pod is not in).
 */
function teamExceptions(policies: readonly CompiledPolicy[], count: number): PolicyException[] {
  return Array.from({ length: count }, (_, n) => ({
    apiVersion: 'kyverno.io/v2',
    kind: 'PolicyException',
    metadata: { name: `team-${n}`, namespace: 'kyverno' },
    spec: {
      exceptions: [{ policyName: policies[n % policies.length]!.key, ruleNames: ['*'] }],
      match: { any: [{ resources: { kinds: ['Pod'], namespaces: [`team-${n}`] } }] },
    },
  }));
}

export interface AdmissionSuite {
  baseline: Measurement;
  /** JSON.parse, validate compiled, validate interpreted, validate with exceptions, one-condition policies, mutate. */
  rows: Measurement[];
  validate: {
    compiled: Measurement;
    interpreted: Measurement;
    exceptions: Measurement;
    oneCondition: Measurement;
    validatingPolicies: Measurement;
    /** Compiled, with tracing on: the OpenTelemetry SDK recording a span per policy and rule (export discarded). */
    traced: Measurement;
  };
  /** PolicyExceptions in force for `validate.exceptions`. */
  exceptions: number;
  mutate: Measurement;
  /** The same four mutations as MutatingPolicies. */
  mutatingPolicies: Measurement;
  validateRules: number;
  patchOperations: number;
}

/**
 * One Pod CREATE through the engine as the webhook will run it: parse the AdmissionReview, then
 * either validate it against the 17 PSS policies or mutate it with four typical mutate policies and
 * build the admission patch. The baseline is JSON.parse of the same review alone, in the same run.
 * Validation runs with the policies compiled (the default), with the interpreter alone, with
 * exceptions in force, and, compiled, over as many policies of one trivial condition each.
 */
export async function runAdmissionSuite(): Promise<AdmissionSuite> {
  const engine = new Engine({ compiledPolicies: true });
  const interpreter = new Engine({ compiledPolicies: false });
  const pss = loadPssPolicies(engine);
  const pssInterpreted = loadPssPolicies(interpreter);
  const exceptions = teamExceptions(pss, EXCEPTIONS);
  const withExceptions = new Engine({ compiledPolicies: true, exceptions: () => exceptions });
  // Tracing on as a controller runs it, its batch handed to an exporter that drops it (no network in the figure).
  const tracing = startOtelTracing({
    serviceName: 'bench',
    endpoint: '127.0.0.1:4317',
    protocol: 'grpc',
    exporter: { export: (_spans, done) => done({ code: 0 }), shutdown: () => Promise.resolve() },
  });
  const traced = new Engine({ compiledPolicies: true, tracing });
  const pssTraced = loadPssPolicies(traced);
  const pssWithExceptions = loadPssPolicies(withExceptions);
  const oneCondition = oneConditionPolicies(engine, pss.length);
  const vpols = loadPssValidatingPolicies();
  const mutators = loadPolicyFile(engine, join(FIXTURES, 'mutate-policies.yaml'));
  const text = reviewText();
  const validateRules = await validatePipeline(engine, pss, text);
  const profileSeconds = Number(process.env.EDICT_BENCH_PROFILE_VALIDATE ?? 0);
  if (profileSeconds > 0) await profileValidate(engine, pss, text, profileSeconds);
  const patchOperations = await mutatePipeline(engine, mutators, text);
  const mpols = loadMutatingPolicies();
  const mpolOperations = await mutatingPolicyPipeline(mpols, text);
  if (mpolOperations !== patchOperations)
    throw new Error(`the MutatingPolicies patch ${mpolOperations} operations, the mutate policies ${patchOperations}`);

  // Timed in turn, round after round, so that every ratio to the baseline pairs figures taken
  // under the same conditions.
  const [baseline, validate, interpreted, excepted, floor, celValidate, mutate, celMutate, tracedValidate] =
    (await measureInterleaved([
      { name: 'JSON.parse(review)', call: () => JSON.parse(text) },
      {
        name: `validate: parse + ${pss.length} PSS policies, compiled`,
        call: () => validatePipeline(engine, pss, text),
      },
      {
        name: `validate: parse + ${pss.length} PSS policies, interpreted`,
        call: () => validatePipeline(interpreter, pssInterpreted, text),
      },
      {
        name: `validate: parse + ${pss.length} PSS policies, compiled, ${EXCEPTIONS} PolicyExceptions in force`,
        call: () => validatePipeline(withExceptions, pssWithExceptions, text),
      },
      {
        name: `validate: parse + ${oneCondition.length} one-condition policies, compiled`,
        call: () => validatePipeline(engine, oneCondition, text),
      },
      {
        name: `validate: parse + the same ${vpols.length} checks as ValidatingPolicies`,
        call: () => validatingPolicyPipeline(vpols, text),
      },
      {
        name: `mutate: parse + ${mutators.length} policies + patch`,
        call: () => mutatePipeline(engine, mutators, text),
      },
      {
        name: `mutate: parse + the same ${mpols.length} mutations as MutatingPolicies + patch`,
        call: () => mutatingPolicyPipeline(mpols, text),
      },
      {
        name: `validate: parse + ${pss.length} PSS policies, compiled, tracing on (a span per review, policy, rule)`,
        call: () => tracing.span('ADMISSION', {}, () => validatePipeline(traced, pssTraced, text)),
      },
    ])) as [
      Measurement,
      Measurement,
      Measurement,
      Measurement,
      Measurement,
      Measurement,
      Measurement,
      Measurement,
      Measurement,
    ];
  await tracing.shutdown();
  return {
    baseline,
    rows: [baseline, validate, interpreted, excepted, floor, celValidate, mutate, celMutate, tracedValidate],
    validate: {
      compiled: validate,
      interpreted,
      exceptions: excepted,
      oneCondition: floor,
      validatingPolicies: celValidate,
      traced: tracedValidate,
    },
    exceptions: EXCEPTIONS,
    mutate,
    mutatingPolicies: celMutate,
    validateRules,
    patchOperations,
  };
}
