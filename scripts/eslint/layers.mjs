// The dependency rules in one place: which libs may import which, and who may import apps.
// Enforced by the `edict/layers` ESLint rule (./layer-rule.mjs) and checked by test/lint/layers.spec.ts.

/**
 * The libs, bottom to top. Each lib names the libs it uses directly; it may import those and, through
 * them, whatever they use (so every lib may reach the foundation). A lib uses only libs of lower layers,
 * so the direction is one way and no two libs import each other. A new lib gets a line here.
 */
export const LAYERS = [
  {
    layer: 'base: plain TypeScript every lib may build on',
    libs: { foundation: [], config: [], 'work-queue': [] },
  },
  { layer: 'expression languages', libs: { cel: ['foundation'], jmespath: ['foundation'] } },
  { layer: 'policy engines (pure)', libs: { engine: ['foundation', 'cel', 'jmespath'] } },
  { layer: 'admission decisions (pure)', libs: { admission: ['engine'] } },
  {
    layer: 'cluster access',
    libs: {
      kube: ['foundation', 'config', 'work-queue'],
      egress: ['config'],
      // The in-memory kube-apiserver: what Kubernetes does, never the policy engines.
      apiserver: ['foundation', 'cel', 'config', 'work-queue'],
    },
  },
  {
    layer: 'cluster services',
    libs: {
      leader: ['kube'],
      registry: ['foundation', 'egress', 'config'],
      'controller-manager': ['apiserver', 'foundation', 'work-queue'],
    },
  },
  {
    layer: 'policies and certificates',
    libs: { policy: ['admission', 'kube', 'leader', 'config'], cert: ['leader', 'kube', 'config'] },
  },
  {
    layer: 'reports, context loading and webhook configurations',
    libs: {
      reports: ['policy', 'admission', 'kube', 'config', 'work-queue'],
      // Every context entry: configMap, apiCall, globalReference (through the policy lib's CRDs), imageRegistry.
      context: ['engine', 'kube', 'egress', 'registry', 'policy', 'work-queue'],
      'webhook-config': ['policy', 'kube', 'leader', 'config'],
    },
  },
  {
    layer: 'controller app skeleton',
    libs: { 'controller-runtime': ['cert', 'webhook-config', 'leader', 'kube', 'policy', 'egress', 'config'] },
  },
  {
    layer: 'test runners (Kyverno CLI test files, chainsaw files)',
    libs: { 'kyverno-test': ['engine'], chainsaw: ['foundation', 'jmespath', 'kube', 'apiserver'] },
  },
];

/**
 * Specs and testing code (`*.spec.ts`, `src/testing/`) may also run the in-memory cluster. Only they
 * import `/testing` entries.
 */
export const TEST_SUPPORT = ['apiserver', 'controller-manager'];

/** The apps: they may import any lib; apps are imported only by the importers below. */
export const APPS = [
  'admission-controller',
  'background-controller',
  'reports-controller',
  'cleanup-controller',
  'cli',
  'launcher',
];
/** Projects that may import apps (the launcher composes them; tests and benches run them). */
export const APP_IMPORTERS = ['apps/launcher', 'test', 'bench'];

/** Today's lib names and the names they have after issue 34's merge; the table uses the new names. */
export const RENAMED = { webhooks: 'webhook-config', controller: 'controller-runtime' };

/**
 * Known exceptions until the merge of issue 34: edges that break the table today and that the named
 * part removes. `from` is a project (libs/<name>, apps/<name>), `to` a lib or app name, `in` which
 * code ('all', or 'tests' for specs and testing code only). The lead empties this list after merging.
 */
export const KNOWN_EXCEPTIONS = [
  // Part 1 (foundation): JSON helpers, Go formats, image references and YAML documents move to libs/foundation,
  // CEL to libs/cel, JMESPath to libs/jmespath; these libs then stop importing the engine.
  { from: 'libs/apiserver', to: 'engine', in: 'all', removedBy: 'part 1 (foundation)' },
  { from: 'libs/chainsaw', to: 'engine', in: 'all', removedBy: 'part 1 (foundation)' },
  { from: 'libs/registry', to: 'engine', in: 'all', removedBy: 'part 1 (foundation)' },
  // A spec today; after the merge also part 5's discovery (GroupVersionKind), which libs/foundation does not hold yet.
  { from: 'libs/kube', to: 'engine', in: 'all', removedBy: 'part 1 (foundation) with part 5 (kube)' },
];
