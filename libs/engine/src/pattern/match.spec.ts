import { describe, expect, it } from 'vitest';
import type { JsonValue } from '@edict/foundation';
import { matchPattern } from './match';
import { planFor } from './plan';

const pod = (spec: JsonValue, metadata: JsonValue = { name: 'p' }): JsonValue => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata,
  spec,
});

describe('matchPattern: plain maps and values', () => {
  it('passes when every pattern key matches', () => {
    const pattern = { metadata: { labels: { app: '?*' } }, spec: { containers: [{ image: '!*:latest' }] } };
    const resource = pod({ containers: [{ image: 'nginx:1.25' }] }, { name: 'p', labels: { app: 'web', other: 'x' } });
    expect(matchPattern(resource, pattern)).toEqual({ status: 'pass' });
  });

  it('reports the first failing array element with its index and a trailing slash', () => {
    const pattern = { spec: { containers: [{ image: '!*:latest' }] } };
    const resource = pod({ containers: [{ image: 'a:1' }, { image: 'b:latest' }, { image: 'c:latest' }] });
    expect(matchPattern(resource, pattern)).toEqual({
      status: 'fail',
      path: '/spec/containers/1/image/',
      message: "resource value 'b:latest' does not match '!*:latest' at path /spec/containers/1/image/",
    });
  });

  it('fails on a missing map with a structure error at the map path', () => {
    const result = matchPattern(pod({}, { name: 'x' }), { metadata: { labels: { app: '?*' } } });
    expect(result).toEqual({
      status: 'fail',
      path: '/metadata/labels/',
      message:
        'pattern and resource have different structures. Path: /metadata/labels/. Expected map[string]interface {}, found <nil>',
    });
  });

  it('fails on a missing scalar as <nil>', () => {
    const result = matchPattern(pod({}, { name: 'x', labels: {} }), { metadata: { labels: { app: '?*' } } });
    expect(result).toEqual({
      status: 'fail',
      path: '/metadata/labels/app/',
      message: "resource value '<nil>' does not match '?*' at path /metadata/labels/app/",
    });
  });

  it('treats "*" as "the key must hold a non-null value", reporting the parent path', () => {
    expect(matchPattern(pod({ hostNetwork: false }), { spec: { hostNetwork: '*' } })).toEqual({ status: 'pass' });
    expect(matchPattern(pod({ x: { deep: [1] } }), { spec: { x: '*' } })).toEqual({ status: 'pass' });
    expect(matchPattern(pod({ hostNetwork: null }), { spec: { hostNetwork: '*' } })).toEqual({
      status: 'fail',
      path: '/spec/',
      message: '/spec//hostNetwork not found',
    });
    expect(matchPattern(pod({}), { spec: { hostNetwork: '*' } })).toMatchObject({ status: 'fail', path: '/spec/' });
  });

  it('reports type mismatches between maps, arrays and scalars', () => {
    expect(matchPattern(pod({ template: 'x' }), { spec: { template: {} } })).toEqual({
      status: 'fail',
      path: '/spec/template/',
      message:
        'pattern and resource have different structures. Path: /spec/template/. Expected map[string]interface {}, found string',
    });
    expect(matchPattern(pod({ containers: {} }), { spec: { containers: [{ name: '*' }] } })).toEqual({
      status: 'fail',
      path: '/spec/containers/',
      message:
        'validation rule failed at path /spec/containers/, resource does not satisfy the expected overlay pattern',
    });
    expect(matchPattern(pod({ containers: ['x'] }), { spec: { containers: [{ name: '*' }] } })).toEqual({
      status: 'fail',
      path: '/spec/containers/0/',
      message:
        'pattern and resource have different structures. Path: /spec/containers/0/. Expected map[string]interface {}, found string',
    });
    expect(matchPattern(pod({ replicas: 2 }), { spec: { replicas: {} } })).toMatchObject({
      message: expect.stringContaining('found int64'),
    });
  });

  it('formats numbers, booleans, nulls, maps and arrays like Go in messages', () => {
    expect(matchPattern({ spec: { replicas: 1 } }, { spec: { replicas: '>1' } })).toMatchObject({
      message: "resource value '1' does not match '>1' at path /spec/replicas/",
    });
    expect(matchPattern({ spec: { port: 5 } }, { spec: { port: 1000000 } })).toMatchObject({
      message: "resource value '5' does not match '1e+06' at path /spec/port/",
    });
    expect(matchPattern({ spec: {} }, { spec: { hostNetwork: false } })).toMatchObject({
      message: "resource value '<nil>' does not match 'false' at path /spec/hostNetwork/",
    });
    expect(matchPattern({ spec: { x: 'a' } }, { spec: { x: null } })).toMatchObject({
      message: "resource value 'a' does not match '<nil>' at path /spec/x/",
    });
    expect(matchPattern({ spec: { x: { b: 2, a: [true] } } }, { spec: { x: 'y' } })).toMatchObject({
      message: "resource value 'map[a:[true] b:2]' does not match 'y' at path /spec/x/",
    });
  });

  it('compares numbers and strings across types', () => {
    expect(matchPattern({ spec: { replicas: '2' } }, { spec: { replicas: 2 } }).status).toBe('pass');
    expect(matchPattern({ spec: { replicas: 2 } }, { spec: { replicas: '2' } }).status).toBe('pass');
    expect(matchPattern({ spec: { replicas: 3 } }, { spec: { replicas: '>=2 & <=5' } }).status).toBe('pass');
    expect(matchPattern({ spec: { enabled: 'true' } }, { spec: { enabled: true } }).status).toBe('fail');
    expect(matchPattern({ spec: { enabled: true } }, { spec: { enabled: 'true' } }).status).toBe('pass');
    expect(matchPattern({ spec: {} }, { spec: { x: null } }).status).toBe('pass');
    expect(matchPattern({ spec: { x: 0 } }, { spec: { x: null } }).status).toBe('pass');
  });

  it('checks quantities and durations inside resources', () => {
    const pattern = { spec: { containers: [{ resources: { limits: { memory: '<=1Gi', cpu: '100m-2' } } }] } };
    const ok = pod({ containers: [{ resources: { limits: { memory: '512Mi', cpu: '500m' } } }] });
    const tooBig = pod({ containers: [{ resources: { limits: { memory: '2Gi', cpu: '1' } } }] });
    expect(matchPattern(ok, pattern)).toEqual({ status: 'pass' });
    expect(matchPattern(tooBig, pattern)).toMatchObject({
      status: 'fail',
      path: '/spec/containers/0/resources/limits/memory/',
    });
    expect(matchPattern({ spec: { ttl: '90s' } }, { spec: { ttl: '<=1m' } })).toMatchObject({
      status: 'fail',
      path: '/spec/ttl/',
    });
    expect(matchPattern({ spec: { ttl: '45s' } }, { spec: { ttl: '<=1m' } }).status).toBe('pass');
  });

  it('accepts an empty pattern map for any map, and matches top-level scalars', () => {
    expect(matchPattern({ a: 1 }, {})).toEqual({ status: 'pass' });
    expect(matchPattern('abc', 'a*')).toEqual({ status: 'pass' });
    expect(matchPattern(null, {})).toMatchObject({ status: 'fail', path: '/' });
  });
});

describe('matchPattern: arrays', () => {
  it('applies a scalar pattern to every element of a resource array (an empty array passes)', () => {
    expect(matchPattern({ metadata: { finalizers: [] } }, { metadata: { finalizers: '?*' } }).status).toBe('pass');
    expect(matchPattern({ metadata: { finalizers: ['a', ''] } }, { metadata: { finalizers: '?*' } })).toEqual({
      status: 'fail',
      path: '/metadata/finalizers/',
      message: "resource value '[a ]' does not match '?*' at path /metadata/finalizers/",
    });
  });

  it('uses only the first element of a pattern array of scalars', () => {
    expect(matchPattern({ args: ['--a', '--a'] }, { args: ['--a'] }).status).toBe('pass');
    expect(matchPattern({ args: ['--a', '--b'] }, { args: ['--a', '--b'] })).toEqual({
      status: 'fail',
      path: '/args/',
      message: "resource value '[--a --b]' does not match '--a' at path /args/",
    });
    expect(matchPattern({ args: [] }, { args: ['--a'] }).status).toBe('pass');
  });

  it('uses only the first element of a pattern array of maps, against every resource element', () => {
    const pattern = { items: [{ name: 'a*' }, { name: 'zzz' }] };
    expect(matchPattern({ items: [{ name: 'ab' }, { name: 'ac' }] }, pattern).status).toBe('pass');
    expect(matchPattern({ items: [{ name: 'ab' }, { name: 'b' }] }, pattern)).toMatchObject({ path: '/items/1/name/' });
    expect(matchPattern({ items: [] }, pattern).status).toBe('pass');
  });

  it('matches nested arrays position by position', () => {
    const pattern = { m: [['a'], ['b*']] };
    expect(matchPattern({ m: [['a'], ['bc'], ['anything']] }, pattern).status).toBe('pass');
    expect(matchPattern({ m: [['a'], ['c']] }, pattern)).toMatchObject({ status: 'fail', path: '/m/1/' });
    // Kyverno gives no path for a length mismatch: the rule errors
    expect(matchPattern({ m: [['a']] }, pattern)).toEqual({
      status: 'fail',
      path: '',
      message: 'validate Array failed, array length mismatch, resource Array len is 1 and pattern Array len is 2',
    });
  });

  it('rejects an empty pattern array', () => {
    expect(matchPattern({ a: [1] }, { a: [] })).toEqual({
      status: 'fail',
      path: '/a/',
      message: 'pattern Array empty',
    });
  });
});

describe('matchPattern: conditional anchor (key)', () => {
  const pattern = { spec: { '(serviceAccountName)': 'default', automountServiceAccountToken: false } };

  it('applies the sibling checks when the condition holds', () => {
    expect(
      matchPattern(pod({ serviceAccountName: 'default', automountServiceAccountToken: false }), pattern).status,
    ).toBe('pass');
    expect(
      matchPattern(pod({ serviceAccountName: 'default', automountServiceAccountToken: true }), pattern),
    ).toMatchObject({
      status: 'fail',
      path: '/spec/automountServiceAccountToken/',
    });
  });

  it('skips the rule when the condition does not hold', () => {
    expect(matchPattern(pod({ serviceAccountName: 'other', automountServiceAccountToken: true }), pattern)).toEqual({
      status: 'skip',
      path: '/spec/serviceAccountName/',
      message:
        "conditional anchor mismatch: resource value 'other' does not match 'default' at path /spec/serviceAccountName/",
    });
  });

  it('skips the rule when the anchored key is absent', () => {
    expect(matchPattern(pod({ automountServiceAccountToken: true }), pattern)).toEqual({
      status: 'skip',
      path: '/spec/serviceAccountName/',
      message: "conditional anchor mismatch: conditional anchor key doesn't exist in the resource",
    });
  });

  it('evaluates anchors before plain keys, so a skip wins over an earlier-sorted failure', () => {
    expect(matchPattern({ a: 'wrong', b: 'wrong' }, { a: 'x', '(b)': 'y' }).status).toBe('skip');
  });

  describe('in an array of maps', () => {
    const latest = { spec: { containers: [{ '(image)': '*:latest', imagePullPolicy: 'Always' }] } };

    it('skips elements whose condition fails and checks the others', () => {
      const resource = pod({ containers: [{ image: 'nginx:1' }, { image: 'a:latest', imagePullPolicy: 'Always' }] });
      expect(matchPattern(resource, latest)).toEqual({ status: 'pass' });
      const bad = pod({ containers: [{ image: 'nginx:1' }, { image: 'a:latest', imagePullPolicy: 'IfNotPresent' }] });
      expect(matchPattern(bad, latest)).toMatchObject({ status: 'fail', path: '/spec/containers/1/imagePullPolicy/' });
    });

    it('skips the rule when every element is skipped, joining the reasons', () => {
      const resource = pod({ containers: [{ image: 'nginx:1' }, { image: 'redis:7' }] });
      expect(matchPattern(resource, latest)).toEqual({
        status: 'skip',
        path: '/spec/containers/0/image/',
        message:
          "conditional anchor mismatch: resource value 'nginx:1' does not match '*:latest' at path /spec/containers/0/image/; " +
          "conditional anchor mismatch: resource value 'redis:7' does not match '*:latest' at path /spec/containers/1/image/",
      });
    });
  });

  describe('nested conditions (docker socket example)', () => {
    const pattern = {
      metadata: { labels: { 'allow-docker': 'true' } },
      '(spec)': { '(volumes)': [{ '(hostPath)': { path: '/var/run/docker.sock' } }] },
    };
    const withVolume = (path: string, labels: Record<string, string>) =>
      pod(
        { containers: [{ name: 'c', image: 'i' }], volumes: [{ name: 'v', hostPath: { path } }] },
        { name: 'p', labels },
      );

    it('skips pods without volumes or without the socket', () => {
      expect(matchPattern(pod({ containers: [] }, { name: 'p', labels: { run: 'x' } }), pattern).status).toBe('skip');
      const other = matchPattern(withVolume('/random', { 'allow-docker': 'false' }), pattern);
      expect(other).toEqual({
        status: 'skip',
        path: '/spec/volumes/0/hostPath/path/',
        message:
          'conditional anchor mismatch: conditional anchor mismatch: conditional anchor mismatch: ' +
          "resource value '/random' does not match '/var/run/docker.sock' at path /spec/volumes/0/hostPath/path/",
      });
    });

    it('requires the label when the socket is mounted', () => {
      expect(matchPattern(withVolume('/var/run/docker.sock', { 'allow-docker': 'true' }), pattern).status).toBe('pass');
      expect(matchPattern(withVolume('/var/run/docker.sock', { 'allow-docker': 'false' }), pattern)).toMatchObject({
        status: 'fail',
        path: '/metadata/labels/allow-docker/',
      });
      expect(matchPattern(withVolume('/var/run/docker.sock', { run: 'x' }), pattern)).toMatchObject({
        status: 'fail',
        path: '/metadata/labels/allow-docker/',
      });
    });
  });

  it('turns any failure inside the condition into a skip, even a negation match', () => {
    expect(matchPattern(pod({ hostNetwork: true }), { '(spec)': { 'X(hostNetwork)': 'null' } }).status).toBe('skip');
    expect(matchPattern(pod(null), { '(spec)': { a: 'b' } })).toMatchObject({
      status: 'skip',
      message: expect.stringMatching(/^conditional anchor mismatch: pattern and resource have different structures/),
    });
  });
});

describe('matchPattern: global anchor <(key)', () => {
  const pattern = { spec: { containers: [{ name: '*', '<(image)': '*:latest', imagePullPolicy: '!Always' }] } };
  const containers = (...items: JsonValue[]) => pod({ containers: items });

  it('skips the whole rule when it does not hold', () => {
    expect(matchPattern(containers({ name: 'n', image: 'nginx:v1', imagePullPolicy: 'Always' }), pattern)).toEqual({
      status: 'skip',
      path: '/spec/containers/0/image/',
      message:
        "global anchor mismatch: resource value 'nginx:v1' does not match '*:latest' at path /spec/containers/0/image/",
    });
  });

  it('checks the rest when it holds', () => {
    expect(
      matchPattern(containers({ name: 'n', image: 'nginx:latest', imagePullPolicy: 'Always' }), pattern),
    ).toMatchObject({
      status: 'fail',
      path: '/spec/containers/0/imagePullPolicy/',
    });
    expect(
      matchPattern(containers({ name: 'n', image: 'nginx:latest', imagePullPolicy: 'IfNotPresent' }), pattern).status,
    ).toBe('pass');
  });

  it('passes when some elements hold and pass while others are skipped', () => {
    const resource = containers(
      { name: 'a', image: 'nginx:latest', imagePullPolicy: 'IfNotPresent' },
      { name: 'b', image: 'nginx:v2', imagePullPolicy: 'Always' },
    );
    expect(matchPattern(resource, pattern).status).toBe('pass');
  });

  it('is ignored when the key is absent', () => {
    expect(matchPattern(pod({ type: 'x' }), { spec: { '<(missing)': 'a', type: 'x' } }).status).toBe('pass');
  });

  it('is evaluated before sibling keys, and its parent key before plain siblings', () => {
    const lb = {
      metadata: { annotations: { 'service.beta.kubernetes.io/aws-load-balancer-security-groups': '?*' } },
      spec: { '<(type)': 'LoadBalancer' },
    };
    expect(matchPattern({ metadata: { name: 's' }, spec: { type: 'ClusterIP' } }, lb).status).toBe('skip');
    expect(matchPattern({ metadata: { name: 's' }, spec: { type: 'LoadBalancer' } }, lb)).toMatchObject({
      status: 'fail',
      path: '/metadata/annotations/',
    });
  });
});

describe('matchPattern: negation anchor X(key)', () => {
  it('fails when the key exists, whatever its value', () => {
    expect(matchPattern(pod({ hostNetwork: false }), { spec: { 'X(hostNetwork)': 'null' } })).toEqual({
      status: 'fail',
      path: '/spec/hostNetwork/',
      message: 'negation anchor matched in resource: /spec/hostNetwork/ is not allowed',
    });
    expect(matchPattern(pod({ hostNetwork: null }), { spec: { 'X(hostNetwork)': 'null' } }).status).toBe('fail');
  });

  it('passes when the key is absent, also inside arrays', () => {
    expect(matchPattern(pod({}), { spec: { 'X(hostNetwork)': 'null' } }).status).toBe('pass');
    const pattern = { spec: { containers: [{ 'X(securityContext)': '*' }] } };
    expect(matchPattern(pod({ containers: [{ name: 'a' }] }), pattern).status).toBe('pass');
    expect(
      matchPattern(pod({ containers: [{ name: 'a' }, { name: 'b', securityContext: {} }] }), pattern),
    ).toMatchObject({
      status: 'fail',
      path: '/spec/containers/1/securityContext/',
    });
  });
});

describe('matchPattern: equality anchor =(key)', () => {
  it('checks the value only when the key exists', () => {
    const pattern = { spec: { '=(hostPID)': false } };
    expect(matchPattern(pod({}), pattern).status).toBe('pass');
    expect(matchPattern(pod({ hostPID: false }), pattern).status).toBe('pass');
    expect(matchPattern(pod({ hostPID: true }), pattern)).toEqual({
      status: 'fail',
      path: '/spec/hostPID/',
      message: "resource value 'true' does not match 'false' at path /spec/hostPID/",
    });
    // present but null is still "present"
    expect(matchPattern(pod({ hostPID: null }), pattern)).toMatchObject({ status: 'fail', path: '/spec/hostPID/' });
  });

  it('nests through optional maps and arrays', () => {
    const pattern = {
      spec: {
        '=(initContainers)': [{ '(name)': '!istio-init', '=(securityContext)': { '=(runAsUser)': '>0' } }],
        '=(containers)': [{ '=(securityContext)': { '=(runAsUser)': '>0' } }],
      },
    };
    const run = (spec: JsonValue) => matchPattern({ spec }, pattern).status;
    expect(
      run({ initContainers: [{ name: 'nginx', securityContext: { runAsUser: 1000 } }], containers: [{ name: 'c' }] }),
    ).toBe('pass');
    expect(
      run({ initContainers: [{ name: 'nginx', securityContext: { runAsUser: 0 } }], containers: [{ name: 'c' }] }),
    ).toBe('fail');
    expect(
      run({ initContainers: [{ name: 'istio-init', securityContext: { runAsUser: 0 } }], containers: [{ name: 'c' }] }),
    ).toBe('pass');
    expect(run({ containers: [{ securityContext: { runAsUser: 0 } }] })).toBe('fail');
  });

  it('passes a conditional skip through, skipping the rule when every element is skipped', () => {
    const pattern = { spec: { '=(volumes)': [{ '(name)': '!cache-volume', '=(emptyDir)': { sizeLimit: '?*' } }] } };
    expect(matchPattern({ spec: { volumes: [{ name: 'cache-volume', emptyDir: {} }] } }, pattern)).toEqual({
      status: 'skip',
      path: '/spec/volumes/0/name/',
      message:
        "conditional anchor mismatch: resource value 'cache-volume' does not match '!cache-volume' at path /spec/volumes/0/name/",
    });
    expect(matchPattern({ spec: { volumes: [{ name: 'data', emptyDir: {} }] } }, pattern)).toMatchObject({
      status: 'fail',
      path: '/spec/volumes/0/emptyDir/sizeLimit/',
    });
    expect(matchPattern({ spec: { volumes: [{ name: 'data' }] } }, pattern).status).toBe('pass');
  });
});

describe('matchPattern: existence anchor ^(key)', () => {
  const pattern = { spec: { '^(containers)': [{ image: 'nginx:latest' }] } };

  it('needs at least one element matching each pattern element', () => {
    expect(matchPattern(pod({ containers: [{ image: 'a' }, { image: 'nginx:latest' }] }), pattern).status).toBe('pass');
    expect(matchPattern(pod({ containers: [{ image: 'a' }] }), pattern)).toEqual({
      status: 'fail',
      path: '/spec/containers/',
      message: 'existence anchor validation failed at path /spec/containers/',
    });
    const two = { spec: { '^(containers)': [{ name: 'a' }, { name: 'b' }] } };
    expect(matchPattern(pod({ containers: [{ name: 'b' }, { name: 'a' }] }), two).status).toBe('pass');
    expect(matchPattern(pod({ containers: [{ name: 'a' }] }), two).status).toBe('fail');
  });

  it('does not leak a nested conditional mismatch as a skip', () => {
    const nested = { spec: { '^(containers)': [{ '(name)': 'nginx', image: 'nginx:latest' }] } };
    expect(matchPattern(pod({ containers: [{ name: 'redis', image: 'redis:7' }] }), nested)).toMatchObject({
      status: 'fail',
      path: '/spec/containers/',
    });
  });

  it('rejects non-list resources and non-list or non-map patterns', () => {
    expect(matchPattern(pod({ containers: 'x' }), pattern)).toEqual({
      status: 'fail',
      path: '/spec/containers/',
      message: 'invalid resource type string: Existence ^ () anchor can be used only on list/array type resource',
    });
    expect(matchPattern(pod({ containers: [] }), { spec: { '^(containers)': { image: 'x' } } })).toMatchObject({
      message: 'invalid pattern type map[string]interface {}: Pattern has to be of list to compare against resource',
    });
    expect(matchPattern(pod({ args: ['--x'] }), { spec: { '^(args)': ['--x'] } })).toMatchObject({
      message:
        'invalid pattern type []interface {}: Pattern has to be of type map to compare against items in resource',
    });
  });

  it('is ignored when the key is absent', () => {
    expect(matchPattern(pod({}), pattern).status).toBe('pass');
  });
});

describe('matchPattern: anchors whose key never appears', () => {
  it('turn an ordinary failure into an execution error (empty path)', () => {
    const pattern = { spec: { '^(volumes)': [{ name: 'x' }], containers: [{ image: '!*:latest' }] } };
    expect(matchPattern(pod({ containers: [{ image: 'a:latest' }] }), pattern)).toEqual({
      status: 'fail',
      path: '',
      message: "resource value 'a:latest' does not match '!*:latest' at path /spec/containers/0/image/",
    });
    expect(matchPattern(pod({ volumes: [{ name: 'x' }], containers: [{ image: 'a:latest' }] }), pattern)).toMatchObject(
      {
        path: '/spec/containers/0/image/',
      },
    );
  });

  it('do not affect negation failures', () => {
    const pattern = { spec: { '^(volumes)': [{ name: 'x' }], 'X(hostPID)': 'null' } };
    expect(matchPattern(pod({ hostPID: true }), pattern)).toMatchObject({ status: 'fail', path: '/spec/hostPID/' });
  });

  it('count as seen once any map checked against them has the key', () => {
    const pattern = { spec: { containers: [{ '(name)': 'a*', image: '!*:latest' }], hostIPC: false } };
    const resource = pod({ containers: [{ image: 'x' }, { name: 'ab', image: 'ok' }], hostIPC: true });
    expect(matchPattern(resource, pattern)).toMatchObject({ status: 'fail', path: '/spec/hostIPC/' });
    // "^(volumes)" never met its key (the pod has no volumes) and hostIPC fails: an execution error
    const existence = { spec: { '^(volumes)': [{ name: 'data' }], hostIPC: false } };
    expect(matchPattern(pod({ containers: [], hostIPC: true }), existence)).toEqual({
      status: 'fail',
      path: '',
      message: "resource value 'true' does not match 'false' at path /spec/hostIPC/",
    });
  });
});

describe('matchPattern: arrays whose elements are all skipped', () => {
  const pattern = {
    spec: {
      '=(initContainers)': [{ '(name)': '!istio-init', '=(securityContext)': { '=(runAsUser)': '>0' } }],
      '=(containers)': [{ '=(securityContext)': { '=(runAsUser)': '>0' } }],
    },
  };
  const istioInit = { name: 'istio-init', securityContext: { runAsUser: 0 } };

  it('do not skip the rule when a sibling key applied', () => {
    expect(matchPattern({ spec: { initContainers: [istioInit], containers: [{ name: 'c' }] } }, pattern)).toEqual({
      status: 'pass',
    });
    expect(
      matchPattern(
        { spec: { initContainers: [istioInit], containers: [{ securityContext: { runAsUser: 1000 } }] } },
        pattern,
      ).status,
    ).toBe('pass');
  });

  it('do not hide a failing sibling', () => {
    const resource = { spec: { initContainers: [istioInit], containers: [{ securityContext: { runAsUser: 0 } }] } };
    expect(matchPattern(resource, pattern)).toMatchObject({
      status: 'fail',
      path: '/spec/containers/0/securityContext/runAsUser/',
    });
    // a failure found before the skipped array (anchors come first) is reported
    const anchoredFirst = {
      spec: { '=(hostIPC)': false, containers: [{ '(image)': '*:latest', imagePullPolicy: 'Always' }] },
    };
    expect(
      matchPattern({ spec: { containers: [{ name: 'a', image: 'a:1' }], hostIPC: true } }, anchoredFirst),
    ).toMatchObject({ status: 'fail', path: '/spec/hostIPC/' });
  });

  it('let a skip set aside outrank a failure found after it in the same map', () => {
    // containers (holding an anchor) is visited before hostIPC: its skip wins over hostIPC's failure
    const plain = { spec: { containers: [{ '(image)': '*:latest', imagePullPolicy: 'Always' }], hostIPC: false } };
    expect(matchPattern({ spec: { containers: [{ name: 'a', image: 'a:1' }], hostIPC: true } }, plain)).toEqual({
      status: 'skip',
      path: '/spec/containers/0/image/',
      message:
        "conditional anchor mismatch: resource value 'a:1' does not match '*:latest' at path /spec/containers/0/image/",
    });
    // per array element: a container whose conditional list does not apply is skipped even though its
    // other fields fail, while the array still fails on a container that applies and fails
    const mounts = {
      spec: {
        containers: [{ resources: { limits: { memory: '?*' } }, volumeMounts: [{ '<(name)': 'scratch' }] }],
      },
    };
    const skipped = { name: 'b', resources: {}, volumeMounts: [{ name: 'other' }] };
    const good = { name: 'a', resources: { limits: { memory: '1Gi' } }, volumeMounts: [{ name: 'scratch' }] };
    const bad = { name: 'c', resources: {}, volumeMounts: [{ name: 'scratch' }] };
    expect(matchPattern({ spec: { containers: [good, skipped] } }, mounts).status).toBe('pass');
    expect(matchPattern({ spec: { containers: [skipped] } }, mounts).status).toBe('skip');
    expect(matchPattern({ spec: { containers: [good, skipped, bad] } }, mounts)).toMatchObject({
      status: 'fail',
      path: '/spec/containers/2/resources/limits/',
    });
  });

  it('let a failure at an anchor key win over a skip set aside before it', () => {
    // =(containers) is visited first and all its containers are skipped; =(initContainers) fails
    const privileged = [{ '(image)': '!*/foo:*', securityContext: { allowPrivilegeEscalation: 'false' } }];
    const anchored = { spec: { '=(containers)': privileged, '=(initContainers)': privileged } };
    const resource = {
      spec: {
        containers: [{ name: 'side', image: 'test/foo:1' }],
        initContainers: [{ name: 'init', image: 'test/bar:1', securityContext: { allowPrivilegeEscalation: true } }],
      },
    };
    expect(matchPattern(resource, anchored)).toMatchObject({
      status: 'fail',
      path: '/spec/initContainers/0/securityContext/allowPrivilegeEscalation/',
    });
  });

  it('skip the rule when nothing else in the map applied, up to the top', () => {
    const lone = { spec: { '=(initContainers)': pattern.spec['=(initContainers)'] } };
    expect(matchPattern({ spec: { initContainers: [istioInit] } }, lone)).toMatchObject({
      status: 'skip',
      path: '/spec/initContainers/0/name/',
    });
    const twoArrays = { spec: { a: [{ '(k)': 'x' }], b: [{ '(k)': 'y' }] } };
    // keys holding anchors are visited in reverse order: b, then a
    expect(matchPattern({ spec: { a: [{ k: 'no' }], b: [{ k: 'no' }] } }, twoArrays)).toEqual({
      status: 'skip',
      path: '/spec/b/0/k/',
      message:
        "conditional anchor mismatch: resource value 'no' does not match 'y' at path /spec/b/0/k/; " +
        "conditional anchor mismatch: resource value 'no' does not match 'x' at path /spec/a/0/k/",
    });
  });

  it('still let a bare anchor mismatch stop the walk (it is not an aggregated skip)', () => {
    // the global anchor fails in spec, evaluated first: metadata (which would fail) is never checked
    const lb = { metadata: { annotations: { a: '?*' } }, spec: { '<(type)': 'LoadBalancer', ports: [{ port: '>0' }] } };
    expect(
      matchPattern({ metadata: { name: 's' }, spec: { type: 'ClusterIP', ports: [{ port: 80 }] } }, lb).status,
    ).toBe('skip');
  });
});

describe('matchPattern: add-if-not-present +(key) in validation', () => {
  it('is looked up as a literal key, so it fails unless the pattern accepts null', () => {
    expect(matchPattern({ metadata: { labels: { app: 'x' } } }, { metadata: { labels: { '+(app)': 'x' } } })).toEqual({
      status: 'fail',
      path: '/metadata/labels/+(app)/',
      message: "resource value '<nil>' does not match 'x' at path /metadata/labels/+(app)/",
    });
    expect(matchPattern({ spec: {} }, { spec: { '+(x)': null } }).status).toBe('pass');
  });
});

describe('matchPattern: key order', () => {
  it('checks anchors sorted by key, then plain keys sorted by key', () => {
    expect(matchPattern({ a: '0', b: '0' }, { '=(b)': '1', '=(a)': '1' })).toMatchObject({ path: '/a/' });
    expect(matchPattern({ a: '0', z: '0' }, { z: '1', a: '1' })).toMatchObject({ path: '/a/' });
  });

  it('checks keys holding nested anchors first, in reverse order', () => {
    expect(matchPattern({ a: '0', z: { k: 'no' } }, { a: '1', z: { '(k)': 'v' } }).status).toBe('skip');
    // b fails for real, c is skipped: c comes first, so the rule is skipped
    const resource = { b: { k: 'no' }, c: { k: 'no' } };
    expect(matchPattern(resource, { b: { '=(k)': 'v' }, c: { '(k)': 'v' } }).status).toBe('skip');
  });
});

describe('matchPattern: metadata wildcards', () => {
  const labelled = (labels: JsonValue) => ({ metadata: { name: 'x', labels } });

  it('expands wildcard label keys against the resource', () => {
    const pattern = { metadata: { labels: { 'app.kubernetes.io/*': '?*' } } };
    expect(matchPattern(labelled({ 'app.kubernetes.io/name': 'web' }), pattern).status).toBe('pass');
    expect(matchPattern(labelled({ 'app.kubernetes.io/name': '' }), pattern)).toMatchObject({
      path: '/metadata/labels/app.kubernetes.io/name/',
    });
    expect(matchPattern(labelled({ other: 'x' }), pattern)).toEqual({
      status: 'fail',
      path: '/metadata/labels/app.kubernetes.io/*/',
      message: "resource value '<nil>' does not match '?*' at path /metadata/labels/app.kubernetes.io/*/",
    });
  });

  it('keeps anchors on expanded keys', () => {
    const pattern = { metadata: { annotations: { 'X(forbidden.io/*)': '*' } } };
    expect(matchPattern({ metadata: { annotations: { 'forbidden.io/x': '1' } } }, pattern)).toEqual({
      status: 'fail',
      path: '/metadata/annotations/forbidden.io/x/',
      message: 'negation anchor matched in resource: /metadata/annotations/forbidden.io/x/ is not allowed',
    });
    expect(matchPattern({ metadata: { annotations: { ok: '1' } } }, pattern).status).toBe('pass');
    const equality = { metadata: { labels: { '=(team-*)': 'a|b' } } };
    expect(matchPattern(labelled({ 'team-x': 'c' }), equality)).toMatchObject({ path: '/metadata/labels/team-x/' });
  });

  it('drops non-string label values from the pattern when the resource has labels', () => {
    expect(matchPattern(labelled({ a: 'b' }), { metadata: { labels: { count: 5 } } }).status).toBe('pass');
  });

  it('leaves the pattern alone when the resource has no labels', () => {
    expect(matchPattern({ metadata: { name: 'x' } }, { metadata: { labels: { 'app*': '?*' } } })).toMatchObject({
      path: '/metadata/labels/',
    });
  });

  it('does not modify the pattern object', () => {
    const pattern = { metadata: { labels: { 'app*': '?*' } } };
    matchPattern(labelled({ app1: 'x' }), pattern);
    expect(pattern).toEqual({ metadata: { labels: { 'app*': '?*' } } });
    expect(matchPattern(labelled({ app2: 'y' }), pattern).status).toBe('pass');
  });

  it('reuses an expansion only for resources whose keys expand the pattern alike', () => {
    const pattern = { metadata: { annotations: { 'team.io/*': 'a|b', 'X(forbidden.io/*)': '*' } } };
    const annotated = (annotations: JsonValue) => ({ metadata: { annotations } });
    expect(matchPattern(annotated({ 'team.io/x': 'a' }), pattern).status).toBe('pass');
    expect(matchPattern(annotated({ 'team.io/x': 'c' }), pattern)).toMatchObject({
      path: '/metadata/annotations/team.io/x/',
    });
    expect(matchPattern(annotated({ 'team.io/y': 'c' }), pattern)).toMatchObject({
      path: '/metadata/annotations/team.io/y/',
    });
    expect(matchPattern(annotated({ 'team.io/x': 'a', 'forbidden.io/z': '1' }), pattern)).toMatchObject({
      path: '/metadata/annotations/forbidden.io/z/',
    });
    expect(matchPattern(annotated({ 'team.io/x': 'b' }), pattern).status).toBe('pass');
  });

  it('builds no expansion when no wildcard key matches and nothing is dropped', () => {
    const pattern = { metadata: { annotations: { '=(apparmor.io/*)': 'runtime/default' } } };
    expect(matchPattern({ metadata: { annotations: { other: 'x' } } }, pattern).status).toBe('pass');
    expect(planFor(pattern).expansions).toBeUndefined();
    expect(matchPattern({ metadata: { annotations: { 'apparmor.io/c': 'x' } } }, pattern)).toMatchObject({
      path: '/metadata/annotations/apparmor.io/c/',
    });
    expect(planFor(pattern).expansions?.size).toBe(1);
  });

  it('writes an anchor back in its canonical form, as the rebuild does, even when no key matches', () => {
    // `=[team*)` parses as an equality anchor on `team*`; rebuilt, the key is `=(team*)`.
    const pattern = { metadata: { labels: { '=[team*)': 'a', x: 'b' } } };
    expect(matchPattern(labelled({ other: 'c', x: 'b' }), pattern).status).toBe('pass');
    expect(matchPattern(labelled({ team1: 'c', x: 'b' }), pattern)).toMatchObject({ path: '/metadata/labels/team1/' });
  });

  it('keeps a bounded number of expansions per pattern', () => {
    const pattern = { metadata: { labels: { 'app-*': 'on' } } };
    for (let i = 0; i < 100; i++) {
      expect(matchPattern(labelled({ [`app-${i}`]: 'on' }), pattern).status).toBe('pass');
      expect(matchPattern(labelled({ [`app-${i}`]: 'off' }), pattern)).toMatchObject({
        path: `/metadata/labels/app-${i}/`,
      });
    }
    expect(planFor(pattern).expansions?.size).toBeLessThanOrEqual(32);
  });
});

describe('matchPattern: robustness', () => {
  it('does not read inherited object properties as resource keys', () => {
    expect(matchPattern({ spec: {} }, { spec: { constructor: '*' } }).status).toBe('fail');
    expect(matchPattern({ spec: {} }, { spec: { '(toString)': 'x', a: 'b' } }).status).toBe('skip');
  });

  it('works on frozen patterns and leaves no visible trace on patterns', () => {
    const freeze = <T>(value: T): T => {
      if (value && typeof value === 'object') Object.values(value).forEach(freeze);
      return Object.freeze(value);
    };
    const frozen = freeze({ spec: { containers: [{ image: '!*:latest' }] } });
    expect(matchPattern(pod({ containers: [{ image: 'a:latest' }] }), frozen).status).toBe('fail');
    const pattern = { spec: { '(a)': 'x', b: ['y'] } };
    const before = JSON.stringify(pattern);
    matchPattern({ spec: { a: 'x', b: ['y'] } }, pattern);
    expect(JSON.stringify(pattern)).toBe(before);
    expect(Object.keys(pattern)).toEqual(['spec']);
    expect(Object.keys(pattern.spec)).toEqual(['(a)', 'b']);
  });

  it('gives the same answer when a pattern is reused (cached plans)', () => {
    const pattern = { spec: { containers: [{ '(image)': '*:latest', imagePullPolicy: 'Always' }] } };
    for (let i = 0; i < 3; i++) {
      expect(matchPattern(pod({ containers: [{ image: 'a:latest', imagePullPolicy: 'Never' }] }), pattern).status).toBe(
        'fail',
      );
      expect(matchPattern(pod({ containers: [{ image: 'a:1' }] }), pattern).status).toBe('skip');
    }
  });
});
