import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { writeTree, yaml } from '@edict/kyverno-test/testing';
import { runCli as cli } from '../testing/run-cli';

afterEach(() => vi.restoreAllMocks());

const files = () =>
  writeTree({
    'policy.yaml': yaml({
      apiVersion: 'policies.kyverno.io/v1',
      kind: 'GeneratingPolicy',
      metadata: { name: 'ns-config' },
      spec: {
        matchConstraints: {
          resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['namespaces'] }],
        },
        generate: [
          {
            expression:
              'generator.Apply(object.metadata.name, [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"}, "data": {"owner": object.metadata.name}}])',
          },
        ],
      },
    }),
    'resources.yaml': yaml({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } }),
  });

describe('edict apply with a GeneratingPolicy', () => {
  it('prints each generated object as Kyverno does and counts the policy as passing', async () => {
    const dir = files();
    const { out, err, code } = await cli(['apply', join(dir, 'policy.yaml'), '-r', join(dir, 'resources.yaml')]);
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out).toContain('Applying 1 policy rule(s) to 1 resource(s)...');
    expect(out).toContain(
      'policy ns-config applied to /Namespace/team-a:\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: team-a\ndata:\n  owner: team-a\n',
    );
    expect(out).toContain('Generate:\nGeneration completed successfully.');
    expect(out).toContain('pass: 1, fail: 0, warn: 0, error: 0, skip: 0');
  });

  it('writes the generated objects to <policy>-generated.yaml under --output', async () => {
    const dir = files();
    const output = join(dir, 'out/');
    const { code } = await cli(['apply', join(dir, 'policy.yaml'), '-r', join(dir, 'resources.yaml'), '-o', output]);
    expect(code).toBe(0);
    expect(readFileSync(join(output, 'ns-config-generated.yaml'), 'utf8')).toContain(
      'name: settings\n  namespace: team-a',
    );
  });
});
