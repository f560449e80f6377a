import { clusterPolicy } from '@edict/controller-runtime/testing';
/**
 * The policies the webhook fuzzing runs under: one of each kind of rule the admission path takes
 * (pattern, deny with variables, foreach, podSecurity, strategic merge and JSON 6902 mutation), so
 * random reviews travel through matching, variables, patterns, patches and reports.
 */

const anyKind = { any: [{ resources: { kinds: ['Pod', 'ConfigMap', 'Deployment', 'Secret', 'Namespace'] } }] };

export const FUZZ_POLICIES = [
  clusterPolicy('fuzz-require-team', {
    validationFailureAction: 'Enforce',
    background: false,
    rules: [
      {
        name: 'team-label',
        match: { any: [{ resources: { kinds: ['Pod'] } }] },
        validate: { message: 'label team is required', pattern: { metadata: { labels: { team: '?*' } } } },
      },
    ],
  }),
  clusterPolicy('fuzz-deny-forbidden', {
    validationFailureAction: 'Enforce',
    background: false,
    rules: [
      {
        name: 'no-forbidden-data',
        match: anyKind,
        validate: {
          message: 'data {{ request.object.metadata.name }} is forbidden',
          deny: {
            conditions: {
              any: [
                { key: "{{ request.object.data.__proto__ || '' }}", operator: 'Equals', value: 'forbidden' },
                {
                  key: "{{ request.object.metadata.labels.env || '' }}",
                  operator: 'AnyIn',
                  value: ['forbidden', 'x*'],
                },
              ],
            },
          },
        },
      },
    ],
  }),
  clusterPolicy('fuzz-audit-images', {
    validationFailureAction: 'Audit',
    background: false,
    rules: [
      {
        name: 'pinned-images',
        match: { any: [{ resources: { kinds: ['Pod'] } }] },
        validate: {
          message: 'images must be pinned',
          foreach: [{ list: 'request.object.spec.containers', pattern: { image: '!*:latest' } }],
        },
      },
    ],
  }),
  clusterPolicy('fuzz-baseline', {
    validationFailureAction: 'Audit',
    background: false,
    rules: [
      {
        name: 'baseline',
        match: { any: [{ resources: { kinds: ['Pod'] } }] },
        validate: { podSecurity: { level: 'baseline', version: 'latest' } },
      },
    ],
  }),
  clusterPolicy('fuzz-mutate', {
    background: false,
    rules: [
      {
        name: 'add-labels',
        match: anyKind,
        mutate: {
          patchStrategicMerge: {
            metadata: { labels: { '+(fuzzed)': 'yes', '+(from)': '{{ request.object.metadata.name }}' } },
          },
        },
      },
      {
        name: 'annotate',
        match: { any: [{ resources: { kinds: ['Pod', 'ConfigMap'] } }] },
        mutate: {
          patchesJson6902: '- op: add\n  path: /metadata/annotations\n  value: {fuzzed: "true"}',
        },
      },
      {
        name: 'touch-data',
        match: { any: [{ resources: { kinds: ['ConfigMap'] } }] },
        mutate: { patchStrategicMerge: { data: { '+(added)': "{{ request.object.data.__proto__ || 'none' }}" } } },
      },
    ],
  }),
];
