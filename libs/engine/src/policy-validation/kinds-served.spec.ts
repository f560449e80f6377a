import { describe, expect, it } from 'vitest';
import type { Policy } from '../policy';
import { checkKindsServed, type KindLookup } from './kinds-served';

function policy(kinds: string[], exclude?: string[]): Policy {
  return {
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name: 'p', annotations: { 'pod-policies.kyverno.io/autogen-controllers': 'none' } },
    spec: {
      background: false,
      rules: [
        {
          name: 'r',
          match: { any: [{ resources: { kinds } }] },
          ...(exclude ? { exclude: { any: [{ resources: { kinds: exclude } }] } } : {}),
          validate: { message: 'm', pattern: { metadata: { labels: { team: '?*' } } } },
        },
      ],
    },
  } as Policy;
}

/** Discovery of a small cluster: Pods (with exec), Deployments (with scale), nothing else. */
const lookup: KindLookup = ({ kind, subresource }) => {
  const served: Record<string, string[]> = { Pod: ['', 'exec'], Deployment: ['', 'scale'] };
  const subs = served[kind];
  if (!subs) return 0;
  return subresource === '*' ? subs.length - 1 : subs.filter((s) => s === subresource).length;
};

describe('checkKindsServed', () => {
  it('admits kinds discovery serves, with their subresources', () => {
    expect(checkKindsServed(policy(['Pod', 'Pod/exec', 'apps/v1/Deployment/scale']), lookup)).toEqual([]);
  });

  it('refuses a kind Kubernetes serves only as a subresource, naming the field', () => {
    expect(checkKindsServed(policy(['Scale']), lookup)).toEqual([
      {
        file: '',
        object: 'ClusterPolicy/p',
        path: 'spec.rules[0].match.any[0].kinds',
        message: 'the kind defined in the all match resource is invalid: unable to convert GVK to GVR for kinds Scale',
      },
    ]);
  });

  it('admits with a warning a kind nothing serves yet (a CRD not installed), in match and exclude', () => {
    const diagnostics = checkKindsServed(policy(['Pod', 'TestResource'], ['example.com/v1/Widget']), lookup);
    expect(diagnostics.map((d) => [d.severity, d.path, d.message])).toEqual([
      [
        'warning',
        'spec.rules[0].match.any[0].kinds',
        'the kind defined in the all match resource is invalid: unable to convert GVK to GVR for kinds TestResource, err: failed to find resource (*/*/TestResource/)',
      ],
      [
        'warning',
        'spec.rules[0].exclude.any[0].kinds',
        'the kind defined in the all match resource is invalid: unable to convert GVK to GVR for kinds example.com/v1/Widget, err: failed to find resource (example.com/v1/Widget/)',
      ],
    ]);
  });

  it('says nothing when discovery cannot tell, and leaves a `*` list to the wildcard check', () => {
    expect(checkKindsServed(policy(['Scale']), () => undefined)).toEqual([]);
    expect(checkKindsServed(policy(['*']), lookup)).toEqual([]);
  });
});
