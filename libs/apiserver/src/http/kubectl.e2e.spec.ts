// kubectl fidelity: real kubectl, default flags, against the server through a temp kubeconfig.
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasKubectl, KUBECTL, kubectlAgainstServer, tableRows } from '../testing/kubectl';

const kubectlServer = kubectlAgainstServer();

const kubectl = (...args: string[]): Promise<string> => kubectlServer.session.run(...args);
const run = promisify(execFile);
const age = expect.stringMatching(/^\d+s$/) as unknown as string;
const file = (name: string, text: string): string => kubectlServer.session.file(name, text);

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
    await expect(kubectl('create', '-f', join(kubectlServer.session.dir, 'd.yaml'))).rejects.toThrow(
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
    await expect(kubectl('replace', '-f', join(kubectlServer.session.dir, 'cfg.json'))).rejects.toThrow(
      'the object has been modified',
    );

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

  it("get prints the server's columns for built-in kinds, priority columns with -o wide", async () => {
    await kubectl('create', 'configmap', 'cfg', '--from-literal=a=1', '--from-literal=b=2');
    await kubectl(
      'create',
      'secret',
      'docker-registry',
      's',
      '--docker-server=r.io',
      '--docker-username=u',
      '--docker-password=p',
    );
    await kubectl('create', 'deployment', 'web', '--image=nginx:1', '--replicas=2');
    await kubectl('create', 'service', 'nodeport', 'np', '--tcp=80:8080');
    await kubectl('run', 'solo', '--image=busybox', '--labels=app=solo');
    expect(tableRows(await kubectl('get', 'configmap', 'cfg'))).toEqual([
      ['NAME', 'DATA', 'AGE'],
      ['cfg', '2', age],
    ]);
    expect(tableRows(await kubectl('get', 'secret', 's'))).toEqual([
      ['NAME', 'TYPE', 'DATA', 'AGE'],
      ['s', 'kubernetes.io/dockerconfigjson', '1', age],
    ]);
    expect(tableRows(await kubectl('get', 'deploy', 'web', '-o', 'wide'))).toEqual([
      ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR'],
      ['web', '0/2', '0', '0', age, 'nginx', 'nginx:1', 'app=web'],
    ]);
    const service = tableRows(await kubectl('get', 'svc', 'np', '-o', 'wide'));
    expect(service[0]).toEqual(['NAME', 'TYPE', 'CLUSTER-IP', 'EXTERNAL-IP', 'PORT(S)', 'AGE', 'SELECTOR']);
    // This server allocates no cluster IPs or node ports: the cells show what is stored.
    expect(service[1]).toEqual(['np', 'NodePort', '<none>', '<none>', '80/TCP', age, 'app=np']);
    expect(tableRows(await kubectl('get', 'pod', 'solo', '-o', 'wide'))).toEqual([
      ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE', 'IP', 'NODE', 'NOMINATED', 'NODE', 'READINESS', 'GATES'],
      ['solo', '0/1', 'Pending', '0', age, '<none>', '<none>', '<none>', '<none>'],
    ]);
    expect(tableRows(await kubectl('get', 'ns', 'default'))).toEqual([
      ['NAME', 'STATUS', 'AGE'],
      ['default', 'Active', age],
    ]);
    // -A adds the namespace from each row's object (PartialObjectMetadata by default).
    expect(tableRows(await kubectl('get', 'cm', '-A', '-l', 'missing=label'))).toEqual([]);
    expect(tableRows(await kubectl('get', 'cm', 'cfg', '-n', 'default', '--show-labels'))[1]).toEqual([
      'cfg',
      '2',
      age,
      '<none>',
    ]);
  });

  it("get prints a CRD's printer columns; a path it cannot evaluate warns and leaves the cell empty", async () => {
    await kubectl(
      'apply',
      '-f',
      file(
        'crd.yaml',
        `apiVersion: apiextensions.k8s.io/v1
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
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
    additionalPrinterColumns:
    - {name: Size, type: integer, jsonPath: .spec.size}
    - {name: Ready, type: string, jsonPath: '.status.conditions[?(@.type == "Ready")].status'}
    - {name: Owner, type: string, jsonPath: ".metadata.labels['example\\\\.com/owner']", priority: 1}
    - {name: Deep, type: string, jsonPath: '..name', priority: 1}
`,
      ),
    );
    await expect.poll(() => kubectl('get', 'crd', 'gadgets.example.com', '-o', 'name')).toContain('gadget');
    await kubectl(
      'apply',
      '-f',
      file(
        'g.yaml',
        `apiVersion: example.com/v1
kind: Gadget
metadata: {name: g1, labels: {example.com/owner: ana}}
spec: {size: 3}
status: {conditions: [{type: Synced, status: "False"}, {type: Ready, status: "True"}]}
`,
      ),
    );
    expect(tableRows(await kubectl('get', 'gadgets'))).toEqual([
      ['NAME', 'SIZE', 'READY'],
      ['g1', '3', 'True'],
    ]);
    const wide = await run(KUBECTL, ['get', 'gadgets', '-o', 'wide', ...kubectlServer.session.commonArgs], {
      env: kubectlServer.session.env,
    });
    expect(tableRows(wide.stdout)).toEqual([
      ['NAME', 'SIZE', 'READY', 'OWNER', 'DEEP'],
      ['g1', '3', 'True', 'ana'], // DEEP's cell is empty
    ]);
    expect(wide.stderr).toContain(
      'printer column "Deep": jsonPath "..name": recursive descent ("..") is not supported',
    );
  });

  it("get -w prints changes, in the server's columns, until its timeout", async () => {
    await kubectl('create', 'configmap', 'first');
    const watcher = spawn(
      KUBECTL,
      ['get', 'configmaps', '-w', '--request-timeout=2s', ...kubectlServer.session.commonArgs],
      {
        env: kubectlServer.session.env,
      },
    );
    let output = '';
    watcher.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<void>((resolve) => watcher.on('close', () => resolve()));
    await expect.poll(() => output, { timeout: 5000 }).toContain('first');
    await kubectl('create', 'configmap', 'second', '--from-literal=a=1', '--from-literal=b=2');
    await expect.poll(() => output, { timeout: 5000 }).toContain('second');
    await exited;
    // The watch asks for Tables too: the DATA column comes only from the server.
    expect(tableRows(output)).toEqual([
      ['NAME', 'DATA', 'AGE'],
      ['first', '0', age],
      ['second', '2', age],
    ]);
  });
});
