// kubectl fidelity: real kubectl, default flags, against the server through a temp kubeconfig.
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { kubeconfigFor } from '../kubeconfig';
import { startServer, type Running } from '../testing/http';

const KUBECTL = process.env.KUBECTL ?? '/usr/bin/kubectl';
const hasKubectl = existsSync(KUBECTL);
if (!hasKubectl) console.warn(`kubectl fidelity suite skipped: no kubectl at ${KUBECTL} (set KUBECTL to its path)`);

const run = promisify(execFile);
let running: Running;
let dir: string;

beforeEach(async () => {
  if (!hasKubectl) return;
  running = await startServer();
  dir = mkdtempSync(join(tmpdir(), 'edict-kubectl-'));
  writeFileSync(join(dir, 'kubeconfig'), kubeconfigFor({ server: running.url }));
});

afterEach(async () => {
  if (!hasKubectl) return;
  await running.server.stop();
  rmSync(dir, { recursive: true, force: true });
});

const env = () => ({ ...process.env, KUBECONFIG: join(dir, 'kubeconfig'), HOME: dir });

/** Runs kubectl; resolves with stdout, or rejects with stderr in the message. */
async function kubectl(...args: string[]): Promise<string> {
  try {
    const { stdout } = await run(KUBECTL, [...args, `--cache-dir=${join(dir, 'cache')}`], {
      env: env(),
      timeout: 15_000,
    });
    return stdout;
  } catch (error) {
    const failed = error as { stderr?: string; message: string };
    throw new Error(`kubectl ${args.join(' ')} failed: ${failed.stderr ?? failed.message}`);
  }
}

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: nginx:1
        env: [{name: A, value: "1"}]
`;

describe.skipIf(!hasKubectl)('kubectl fidelity', () => {
  it('apply creates then configures (client-side three-way strategic patch)', async () => {
    const path = file('deploy.yaml', DEPLOYMENT);
    expect(await kubectl('apply', '-f', path)).toBe('deployment.apps/web created\n');
    expect(await kubectl('apply', '-f', path)).toBe('deployment.apps/web unchanged\n');
    file('deploy.yaml', DEPLOYMENT.replace('nginx:1', 'nginx:2'));
    expect(await kubectl('apply', '-f', path)).toBe('deployment.apps/web configured\n');
    const live = JSON.parse(await kubectl('get', 'deployment', 'web', '-o', 'json'));
    expect(live.spec.template.spec.containers).toEqual([
      { name: 'web', image: 'nginx:2', env: [{ name: 'A', value: '1' }] },
    ]);
    expect(live.metadata.generation).toBe(2);
    expect(live.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).toContain('nginx:2');
  });

  it('create (generators and -f), get -o json, label, patch, replace, delete', async () => {
    expect(await kubectl('create', 'namespace', 'team')).toBe('namespace/team created\n');
    expect(await kubectl('create', 'configmap', 'cfg', '-n', 'team', '--from-literal=a=1')).toBe(
      'configmap/cfg created\n',
    );
    expect(await kubectl('create', 'secret', 'generic', 's', '-n', 'team', '--from-literal=p=pw')).toBe(
      'secret/s created\n',
    );
    expect(JSON.parse(await kubectl('get', 'secret', 's', '-n', 'team', '-o', 'json')).data).toEqual({
      p: Buffer.from('pw').toString('base64'),
    });
    expect(await kubectl('create', '-f', file('d.yaml', DEPLOYMENT))).toBe('deployment.apps/web created\n');
    await expect(kubectl('create', '-f', join(dir, 'd.yaml'))).rejects.toThrow(
      'Error from server (AlreadyExists): error when creating',
    );

    expect(await kubectl('label', 'configmap', 'cfg', '-n', 'team', 'tier=gold')).toBe('configmap/cfg labeled\n');
    expect(await kubectl('get', 'configmaps', '-n', 'team', '-l', 'tier=gold', '-o', 'name')).toBe('configmap/cfg\n');
    expect(
      await kubectl(
        'patch',
        'deployment',
        'web',
        '-p',
        '{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx:3"}]}}}}',
      ),
    ).toBe('deployment.apps/web patched\n');
    expect(
      await kubectl('patch', 'configmap', 'cfg', '-n', 'team', '--type', 'merge', '-p', '{"data":{"b":"2"}}'),
    ).toBe('configmap/cfg patched\n');
    expect(
      await kubectl(
        'patch',
        'configmap',
        'cfg',
        '-n',
        'team',
        '--type',
        'json',
        '-p',
        '[{"op":"remove","path":"/data/a"}]',
      ),
    ).toBe('configmap/cfg patched\n');
    const deployment = JSON.parse(await kubectl('get', 'deploy', 'web', '-o', 'json'));
    expect(deployment.spec.template.spec.containers[0]).toEqual({
      name: 'web',
      image: 'nginx:3',
      env: [{ name: 'A', value: '1' }],
    });

    const cfg = JSON.parse(await kubectl('get', 'cm', 'cfg', '-n', 'team', '-o', 'json'));
    expect(cfg.data).toEqual({ b: '2' });
    cfg.data = { replaced: 'yes' };
    expect(await kubectl('replace', '-f', file('cfg.json', JSON.stringify(cfg)))).toBe('configmap/cfg replaced\n');
    await expect(kubectl('replace', '-f', join(dir, 'cfg.json'))).rejects.toThrow('the object has been modified');

    expect(await kubectl('delete', 'configmap', 'cfg', '-n', 'team')).toBe('configmap "cfg" deleted\n');
    await expect(kubectl('get', 'configmap', 'cfg', '-n', 'team')).rejects.toThrow(
      'Error from server (NotFound): configmaps "cfg" not found',
    );
    expect(await kubectl('delete', 'namespace', 'team')).toBe('namespace "team" deleted\n');
  });

  it('serves CRDs and their custom resources (merge patch; strategic is refused)', async () => {
    await kubectl(
      'apply',
      '-f',
      file(
        'crd.yaml',
        `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wg]}
  versions:
  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}
`,
      ),
    );
    const widget = file('w.yaml', 'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w1}\nspec: {size: 1}\n');
    expect(await kubectl('apply', '-f', widget)).toBe('widget.example.com/w1 created\n');
    file('w.yaml', 'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w1}\nspec: {size: 2}\n');
    expect(await kubectl('apply', '-f', widget)).toBe('widget.example.com/w1 configured\n');
    expect(await kubectl('get', 'wg', 'w1', '-o', 'jsonpath={.spec.size}')).toBe('2');
    await expect(kubectl('patch', 'wg', 'w1', '-p', '{"spec":{"x":1}}')).rejects.toThrow(
      'application/strategic-merge-patch+json is not supported',
    );
    expect(await kubectl('apply', '--server-side', '-f', widget)).toBe('widget.example.com/w1 serverside-applied\n');
  });

  it('create generators send protobuf bodies the server reads for every kind', async () => {
    const created = [
      ['create', 'deployment', 'web', '--image=nginx:1', '--replicas=0', '--port=80'],
      ['create', 'job', 'once', '--image=busybox', '--', 'true'],
      ['create', 'cronjob', 'nightly', '--image=busybox', '--schedule=0 1 * * *'],
      ['create', 'job', 'now', '--from=cronjob/nightly'],
      ['create', 'service', 'clusterip', 'svc', '--tcp=80:8080'],
      ['create', 'service', 'nodeport', 'np', '--tcp=80:8080'],
      ['create', 'role', 'reader', '--verb=get', '--resource=pods'],
      ['create', 'rolebinding', 'reader', '--role=reader', '--user=bob'],
      ['create', 'clusterrole', 'creader', '--verb=get', '--resource=pods'],
      ['create', 'clusterrolebinding', 'creader', '--clusterrole=creader', '--serviceaccount=default:robot'],
      ['create', 'serviceaccount', 'robot'],
      ['create', 'ingress', 'ing', '--rule=foo.com/bar=svc:80'],
      ['create', 'poddisruptionbudget', 'pdb', '--selector=app=web', '--min-available=1'],
      ['create', 'priorityclass', 'low', '--value=0'],
      ['create', 'quota', 'q', '--hard=pods=2'],
    ];
    for (const args of created) await kubectl(...args);
    const deployment = JSON.parse(await kubectl('get', 'deployment', 'web', '-o', 'json'));
    // replicas is a pointer in Go: an explicit 0 survives; unset scalars do not appear.
    expect(deployment.spec.replicas).toBe(0);
    expect(deployment.spec.template.spec.containers).toEqual([
      { name: 'nginx', image: 'nginx:1', ports: [{ containerPort: 80 }], resources: {} },
    ]);
    expect(await kubectl('get', 'priorityclass', 'low', '-o', 'jsonpath={.value}')).toBe('0');
    expect(await kubectl('get', 'pdb', 'pdb', '-o', 'jsonpath={.spec.minAvailable}')).toBe('1');
    expect(await kubectl('get', 'job', 'now', '-o', 'jsonpath={.metadata.ownerReferences[0].kind}')).toBe('CronJob');
    expect(await kubectl('get', 'svc', 'np', '-o', 'jsonpath={.spec.type} {.spec.ports[0].targetPort}')).toBe(
      'NodePort 8080',
    );
    expect(JSON.parse(await kubectl('get', 'rolebinding', 'reader', '-o', 'json')).subjects).toEqual([
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'bob' },
    ]);
    expect(await kubectl('scale', 'deployment', 'web', '--replicas=2')).toBe('deployment.apps/web scaled\n');
    expect(await kubectl('auth', 'can-i', 'create', 'pods', '--as=system:serviceaccount:default:robot')).toBe('yes\n');
  });

  it('get -w prints changes until its timeout', async () => {
    await kubectl('create', 'configmap', 'first');
    const watcher = spawn(
      KUBECTL,
      ['get', 'configmaps', '-w', '--request-timeout=2s', `--cache-dir=${join(dir, 'cache')}`],
      { env: env() },
    );
    let output = '';
    watcher.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<void>((resolve) => watcher.on('close', () => resolve()));
    await expect.poll(() => output, { timeout: 5000 }).toContain('first');
    await kubectl('create', 'configmap', 'second');
    await expect.poll(() => output, { timeout: 5000 }).toContain('second');
    await exited;
    expect(output.split('\n')[0]).toMatch(/^NAME\s+AGE$/);
  });
});
