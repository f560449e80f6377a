// kubectl against the server's schemas: explain, the default strict validation of apply, warn and
// ignore, and "no matches for kind" for a kind without CRD. kubectl is an independent client here.
import { describe, expect, it } from 'vitest';
import { hasKubectl, kubectlAgainstServer } from '../testing/kubectl';

const kubectlServer = kubectlAgainstServer();

const kubectl = (...args: string[]): Promise<string> => kubectlServer.session.run(...args);
/** kubectl's stderr when it fails (the session puts it in the error's message). */
const failure = async (...args: string[]): Promise<string> => {
  try {
    await kubectlServer.session.run(...args);
  } catch (error) {
    return (error as Error).message.replace(/^kubectl .*? failed: /s, '');
  }
  throw new Error(`kubectl ${args.join(' ')} succeeded`);
};

/** A successful run's stdout and stderr (where kubectl prints the server's warnings). */
const withStderr = async (...args: string[]): Promise<{ stdout: string; stderr: string }> => {
  const { code, stdout, stderr } = await kubectlServer.session.attempt(...args);
  if (code !== 0) throw new Error(`kubectl ${args.join(' ')} failed: ${stderr}`);
  return { stdout, stderr };
};

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            description: What the gadget does.
            required: [mode]
            properties:
              mode: {type: string, enum: [Audit, Enforce], description: How failures are handled.}
              background: {type: boolean, default: true}
              rules:
                type: array
                items:
                  type: object
                  properties:
                    name: {type: string}
                    message: {type: string, description: The message shown on failure.}
`;

const GADGET = `apiVersion: example.com/v1
kind: Gadget
metadata: {name: g, namespace: default}
spec:
  mode: Enforce
  rules:
  - name: r
    mesage: typo
`;

describe.skipIf(!hasKubectl)('kubectl with schemas', () => {
  it('apply of a kind without CRD says "no matches for kind", as with a real cluster', async () => {
    const path = kubectlServer.session.file(
      'widget.yaml',
      'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n',
    );
    expect(await failure('apply', '-f', path)).toBe(
      'error: resource mapping not found for name: "w" namespace: "" from "' +
        path +
        '": no matches for kind "Widget" in version "example.com/v1"\nensure CRDs are installed first\n',
    );
  });

  it('explain prints the field docs of built-in kinds and of CRDs', async () => {
    const pod = await kubectl('explain', 'pod.spec');
    expect(pod).toContain('FIELD: spec <PodSpec>');
    expect(pod).toContain('PodSpec is a description of a pod.');
    expect(pod).toMatch(/containers\t<\[\]Container> -required-\n\s+List of containers belonging to the pod./);
    expect(pod).toMatch(/affinity\t<Affinity>\n\s+If specified, the pod's scheduling constraints/);
    await kubectl('apply', '-f', kubectlServer.session.file('crd.yaml', CRD));
    const mode = await kubectl('explain', 'gadget.spec.mode');
    expect(mode).toContain('FIELD: mode <string>\nENUM:\n    Audit\n    Enforce');
    expect(mode).toContain('How failures are handled.');
    expect(await kubectl('explain', 'gadget.spec.rules')).toContain(
      'message\t<string>\n    The message shown on failure.',
    );
  });

  it('apply refuses an unknown field and an enum typo (strict by default); warn warns; --validate=false prunes', async () => {
    await kubectl('apply', '-f', kubectlServer.session.file('crd.yaml', CRD));
    const path = kubectlServer.session.file('gadget.yaml', GADGET);
    expect(await failure('apply', '-f', path)).toBe(
      `Error from server (BadRequest): error when creating "${path}": Gadget in version "v1" cannot be handled as a Gadget: strict decoding error: unknown field "spec.rules[0].mesage"\n`,
    );
    const typo = kubectlServer.session.file(
      'typo.yaml',
      GADGET.replace('Enforce', 'Enforse').replace('mesage', 'message'),
    );
    expect(await failure('apply', '-f', typo)).toBe(
      'The Gadget "g" is invalid: spec.mode: Unsupported value: "Enforse": supported values: "Audit", "Enforce"\n',
    );
    const warned = await withStderr('apply', '-f', path, '--validate=warn');
    expect(warned).toEqual({
      stdout: 'gadget.example.com/g created\n',
      stderr: 'Warning: unknown field "spec.rules[0].mesage"\n',
    });
    await kubectl('delete', 'gadget', 'g');
    expect(await kubectl('apply', '-f', path, '--validate=false')).toBe('gadget.example.com/g created\n');
    const stored = JSON.parse(await kubectl('get', 'gadget', 'g', '-o', 'json')) as { spec: unknown };
    // Pruned, and defaulted after pruning.
    expect(stored.spec).toEqual({ mode: 'Enforce', background: true, rules: [{ name: 'r' }] });
  });

  it('server-side apply reports the undeclared field as kube-apiserver 1.32 does', async () => {
    await kubectl('apply', '-f', kubectlServer.session.file('crd.yaml', CRD));
    const path = kubectlServer.session.file('gadget.yaml', GADGET);
    expect(await failure('apply', '--server-side', '-f', path)).toBe(
      'Error from server: failed to create typed patch object (default/g; example.com/v1, Kind=Gadget): .spec.rules[0].mesage: field not declared in schema\n',
    );
  });
});
