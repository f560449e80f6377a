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
  {
    layer: "tracing: OpenTelemetry behind the foundation's port (the pure libs see only the port)",
    libs: { tracing: ['foundation'] },
  },
  { layer: 'expression languages', libs: { cel: ['foundation'], jmespath: ['foundation'] } },
  {
    layer: "Kubernetes' own admission policies (pure): match resources, ValidatingAdmissionPolicy",
    libs: { 'native-policies': ['foundation', 'cel'] },
  },
  {
    layer: 'image verification (pure: registries through a port)',
    libs: { 'image-verify': ['foundation'] },
  },
  { layer: 'classic policy engine (pure)', libs: { engine: ['foundation', 'cel', 'jmespath', 'image-verify'] } },
  // Kyverno's CEL policies answer with the classic engine's response types, as Kyverno's do.
  { layer: 'CEL policy engines (pure)', libs: { 'cel-policies': ['engine', 'native-policies'] } },
  { layer: 'admission decisions (pure)', libs: { admission: ['engine', 'cel-policies'] } },
  {
    layer: 'cluster access',
    libs: {
      kube: ['foundation', 'config', 'work-queue'],
      egress: ['foundation', 'config'],
      // The in-memory kube-apiserver: what Kubernetes does, never the policy engines.
      apiserver: ['foundation', 'cel', 'native-policies', 'config', 'work-queue'],
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
    libs: {
      'controller-runtime': ['cert', 'webhook-config', 'leader', 'kube', 'policy', 'egress', 'config', 'tracing'],
    },
  },
  {
    layer: 'test runners (Kyverno CLI test files, chainsaw files)',
    libs: {
      'kyverno-test': ['engine', 'cel-policies', 'native-policies'],
      chainsaw: ['foundation', 'jmespath', 'kube', 'apiserver'],
    },
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
