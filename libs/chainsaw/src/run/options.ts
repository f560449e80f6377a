import type { JsonObject } from '@edict/foundation';
import type { ClusterClient } from '../cluster/cluster-client';
import type { ChainsawTest, OperationType } from '../load/model';
import type { ProcessRunner } from '../process/process-runner';

export interface ChainsawRunOptions {
  /** Test folders or files; every folder holding `chainsaw-test.yaml` below them is a test. */
  readonly paths: readonly string[];
  /**
   * The cluster's kubeconfig: scripts and commands get it as KUBECONFIG, and the default
   * ClusterClient is built from it. Required unless `clusterClient` is given and no test runs a
   * script that needs a cluster.
   */
  readonly kubeconfigPath?: string;
  /**
   * Multiplies every apply/assert/error/delete/cleanup timeout (from the Configuration, the test,
   * the step or the operation). Chainsaw's defaults are sized for a kind cluster with real
   * controllers; an in-memory API server answers far faster, so a factor below 1 (e.g. 0.25)
   * makes failing tests fail sooner. Default 1.
   */
  readonly timeoutScale?: number;
  /** Lower bound of a scaled timeout, milliseconds (default 1000). */
  readonly timeoutFloorMs?: number;
  /**
   * Multiplies `exec` timeouts (script, command). Default 1: scripts run real processes (kubectl)
   * whose speed does not depend on the cluster.
   */
  readonly execTimeoutScale?: number;
  /** Multiplies `sleep` durations. Default 1. */
  readonly sleepScale?: number;
  /** Delay between two attempts of a retried operation (assert, error, apply...), ms (default 100). */
  readonly pollIntervalMs?: number;
  /**
   * The Configuration file for every test. Without it, each test uses the nearest `.chainsaw.yaml`
   * walking up from its folder (see findConfigurationFile), else chainsaw's defaults.
   */
  readonly configPath?: string;
  readonly clusterClient?: ClusterClient;
  readonly processRunner?: ProcessRunner;
  /** `$values` in expressions (chainsaw's `--values`). */
  readonly values?: JsonObject;
  /** Environment of scripts and commands (default process.env); KUBECONFIG and NAMESPACE are added. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Called with each result as soon as its test ends. */
  readonly onResult?: (result: ChainsawTestResult) => void;
  /**
   * Wraps the run of each test. Tests of one run go one after another; a driver running several runs
   * side by side (one cluster each) uses this to serialise, across them, the tests that hold something
   * of the host's, such as the fixed port of `kubectl proxy`.
   */
  readonly aroundTest?: (test: ChainsawTest, run: () => Promise<ChainsawTestResult>) => Promise<ChainsawTestResult>;
  /** Stops before the next test (the running one finishes with its cleanup). */
  readonly signal?: AbortSignal;
  /** Names the ephemeral namespace of a test (default `chainsaw-<adjective>-<noun>`). */
  readonly namespaceName?: () => string;
}

export type ChainsawOutcome = 'pass' | 'fail' | 'error' | 'skip';

export interface ChainsawFailure {
  /** The step's name (`step-01` when unnamed); absent for a failure outside steps. */
  readonly step?: string;
  /** 0-based index of the step. */
  readonly stepIndex?: number;
  /** Where in the step: try, catch, finally, cleanup (a step's cleanup block or the deletion of what it created). */
  readonly phase: 'try' | 'catch' | 'finally' | 'cleanup' | 'setup';
  readonly operation?: {
    readonly type: OperationType | 'cleanup' | 'namespace';
    /** 0-based index in its block. */
    readonly index: number;
    /** The file the operation read (relative to the test folder as written), if any. */
    readonly file?: string;
    /** The object concerned: `v1/ConfigMap/ns/name`. */
    readonly resource?: string;
  };
  readonly reason: string;
  /** Expected against actual (assert), when there was a candidate to compare with. */
  readonly diff?: string;
}

export interface ChainsawTestResult {
  /** The Test's metadata.name. */
  readonly name: string;
  /** The test's folder (absolute) and file. */
  readonly path: string;
  readonly file: string;
  readonly outcome: ChainsawOutcome;
  readonly durationMs: number;
  /** The namespace the test ran in. */
  readonly namespace?: string;
  /** The first failure (the one that stopped the test), for outcome fail or error. */
  readonly failure?: ChainsawFailure;
  /** Every failure, including those of catch, finally and cleanup. */
  readonly failures: readonly ChainsawFailure[];
  /** Why the test is `error` (a bad test file) or `skip`. */
  readonly message?: string;
}
