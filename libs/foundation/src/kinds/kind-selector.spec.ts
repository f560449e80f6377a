import { describe, expect, it } from 'vitest';
import { compileKindSelector, kindMatches, kindSelectorMatches, parseKind } from './kind-selector';

const pod = { group: '', version: 'v1', kind: 'Pod' };
const deployment = { group: 'apps', version: 'v1', kind: 'Deployment' };
const netpol = { group: 'networking.k8s.io', version: 'v1', kind: 'NetworkPolicy' };
const antreaNetpol = { group: 'crd.antrea.io', version: 'v1alpha1', kind: 'NetworkPolicy' };

describe('parseKind', () => {
  it.each([
    ['Pod', { group: '*', version: '*', kind: 'Pod' }],
    ['*', { group: '*', version: '*', kind: '*' }],
    ['v1/Pod', { group: '*', version: 'v1', kind: 'Pod' }],
    ['v2beta1/HorizontalPodAutoscaler', { group: '*', version: 'v2beta1', kind: 'HorizontalPodAutoscaler' }],
    ['*/Pod', { group: '*', version: '*', kind: 'Pod' }],
    ['Pod/exec', { group: '*', version: '*', kind: 'Pod', subresource: 'exec' }],
    ['Pod.status', { group: '*', version: '*', kind: 'Pod', subresource: 'status' }],
    ['*/scale', { group: '*', version: '*', kind: '*', subresource: 'scale' }],
    ['*/*', { group: '*', version: '*', kind: '*', subresource: '*' }],
    ['apps/v1/Deployment', { group: 'apps', version: 'v1', kind: 'Deployment' }],
    ['networking.k8s.io/v1/NetworkPolicy', { group: 'networking.k8s.io', version: 'v1', kind: 'NetworkPolicy' }],
    ['v1/Pod/status', { group: '*', version: 'v1', kind: 'Pod', subresource: 'status' }],
    ['apps/v1/Deployment/scale', { group: 'apps', version: 'v1', kind: 'Deployment', subresource: 'scale' }],
    ['apps/v1/Deployment.scale', { group: 'apps', version: 'v1', kind: 'Deployment', subresource: 'scale' }],
    // A non-version first segment of two is a kind with a subresource, as in Kyverno.
    ['apps/Deployment', { group: '*', version: '*', kind: 'apps', subresource: 'Deployment' }],
    ['a/b/c/d/e', { group: '', version: '', kind: '' }],
  ])('%s', (input, expected) => {
    expect(parseKind(input)).toEqual(expected);
  });

  it('returns the cached parse for repeated selectors', () => {
    expect(parseKind('apps/v1/StatefulSet')).toBe(parseKind('apps/v1/StatefulSet'));
  });
});

describe('kindMatches', () => {
  it.each([
    [['Pod'], pod, '', true],
    [['pod'], pod, '', false], // kinds are case-sensitive
    [['Deployment'], pod, '', false],
    [['Pod', 'Deployment'], deployment, '', true],
    [['*'], deployment, '', true],
    [['Deploy*'], deployment, '', true],
    [['?od'], pod, '', true],
    [['v1/Pod'], pod, '', true],
    [['v2/Pod'], pod, '', false],
    [['apps/v1/Deployment'], deployment, '', true],
    [['apps/v1beta1/Deployment'], deployment, '', false],
    [['extensions/v1/Deployment'], deployment, '', false],
    [['networking.k8s.io/v1/NetworkPolicy'], netpol, '', true],
    [['networking.k8s.io/v1/NetworkPolicy'], antreaNetpol, '', false],
    [['NetworkPolicy'], antreaNetpol, '', true],
    [['*.k8s.io/*/NetworkPolicy'], netpol, '', true],
    // subresources
    [['Pod'], pod, 'exec', true],
    [['Pod/exec'], pod, 'exec', true],
    [['Pod/exec'], pod, '', false],
    [['Pod/exec'], pod, 'status', false],
    [['Pod/status'], pod, 'status', true],
    [['Pod.status'], pod, 'status', true],
    [['*/scale'], deployment, 'scale', true],
    [['*/scale'], deployment, '', false],
    [['*/*'], deployment, '', true],
    [['*/*'], deployment, 'status', true],
    [['Deployment/scale'], deployment, 'scale', true],
    [['apps/v1/Deployment/scale'], deployment, 'scale', true],
    [['Pod/*'], pod, 'log', true],
  ] as const)('%j vs %j/%s is %s', (kinds, gvk, sub, expected) => {
    expect(kindMatches(kinds, gvk, sub, false)).toBe(expected);
  });

  it('lets any Pod selector cover ephemeralcontainers when asked to (rules)', () => {
    expect(kindMatches(['Pod/exec'], pod, 'ephemeralcontainers', true)).toBe(true);
    expect(kindMatches(['Pod/exec'], pod, 'ephemeralcontainers', false)).toBe(false);
    expect(kindMatches(['Deployment/scale'], deployment, 'ephemeralcontainers', true)).toBe(false);
  });
});

describe('compileKindSelector', () => {
  const selectors = [
    'Pod',
    'v1/Pod',
    'Pod/exec',
    'Pod.status',
    '*',
    '*/*',
    '*/scale',
    'apps/v1/Deployment',
    'apps/*/Deploy*',
    'v1/Pod/ephemeralcontainers',
    'Network?olicy',
  ];
  const kinds = [pod, deployment, netpol, antreaNetpol];
  const subresources = ['', 'exec', 'status', 'scale', 'ephemeralcontainers'];

  it('answers as kindSelectorMatches does, with and without ephemeral containers allowed', () => {
    for (const text of selectors) {
      const selector = parseKind(text);
      const matches = compileKindSelector(selector);
      for (const gvk of kinds)
        for (const subresource of subresources)
          for (const allow of [true, false])
            expect([text, gvk.kind, subresource, allow, matches(gvk, subresource, allow)]).toEqual([
              text,
              gvk.kind,
              subresource,
              allow,
              kindSelectorMatches(selector, gvk, subresource, allow),
            ]);
    }
  });
});
