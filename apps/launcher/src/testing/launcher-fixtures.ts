/** Shared by the launcher's specs: short controller timings, temp folders, free ports, HTTPS with the CA. */
import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ControllerConfig } from '@edict/admission-controller';
import { TEST_TIMINGS } from '@edict/admission-controller/testing';

/** The repository's examples/ folder. */
export const REPO_EXAMPLES = resolve(__dirname, '../../../../examples');

/** Short timings so a spec takes seconds (the controller on any free port). */
export const FAST_CONTROLLER: Partial<ControllerConfig> = { port: 0, ...TEST_TIMINGS };

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `edict-${prefix}-`));
}

/** A copy of the repository's examples plus one whose policy Kyverno's validation refuses. */
export function examplesWithAnInvalidOne(): string {
  const dir = join(tempDir('examples'), 'examples');
  cpSync(REPO_EXAMPLES, dir, { recursive: true });
  mkdirSync(join(dir, 'broken'));
  writeFileSync(
    join(dir, 'broken', 'kyverno-test.yaml'),
    'apiVersion: cli.kyverno.io/v1alpha1\nkind: Test\nmetadata:\n  name: broken\npolicies:\n  - policy.yaml\nresources: []\nresults: []\n',
  );
  writeFileSync(
    join(dir, 'broken', 'policy.yaml'),
    [
      'apiVersion: kyverno.io/v1',
      'kind: ClusterPolicy',
      'metadata:',
      '  name: broken',
      'spec:',
      '  rules:',
      '    - name: both',
      '      match:',
      '        any: [{ resources: { kinds: [Pod] } }]',
      '        all: [{ resources: { kinds: [Pod] } }]',
      '      validate:',
      "        message: 'never'",
      "        pattern: { metadata: { name: '?*' } }",
      '',
    ].join('\n'),
  );
  return dir;
}

/** A port nobody listens on right now. */
export async function freePort(): Promise<number> {
  const server = await occupyPort();
  const port = (server.address() as { port: number }).port;
  await new Promise((done) => server.close(done));
  return port;
}

/** A listener holding a port on 127.0.0.1 (close it after). */
export function occupyPort(port = 0): Promise<Server> {
  const server = createServer();
  return new Promise((done, fail) => {
    server.once('error', fail);
    server.listen(port, '127.0.0.1', () => done(server));
  });
}

/** GET over HTTPS to 127.0.0.1, trusting only `ca` and checking the certificate against 127.0.0.1. */
export function httpsGet(port: number, path: string, ca: string): Promise<{ status: number; body: string }> {
  return new Promise((done, fail) => {
    const call = request({ host: '127.0.0.1', port, path, ca, agent: false }, (response) => {
      let body = '';
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => done({ status: response.statusCode ?? 0, body }));
    });
    call.on('error', fail);
    call.end();
  });
}

/** True when something accepts connections on 127.0.0.1:port. */
export function listening(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
  });
}
