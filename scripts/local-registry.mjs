// `npm run registry`: a local OCI registry for local mode (`npm start`), in the foreground until
// Ctrl-C. Debian's docker-registry (CNCF distribution 2.8) on 127.0.0.1:5000, no auth, storing in
// a directory that outlives restarts. The tests start their own (libs/registry's startLocalRegistry,
// a free port and a temporary directory); this is the same configuration on a fixed port.
// Environment: EDICT_REGISTRY_PORT (default 5000), EDICT_REGISTRY_STORAGE (default
// <tmp>/edict-local-registry), EDICT_DOCKER_REGISTRY (the binary).
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const port = Number(process.env.EDICT_REGISTRY_PORT ?? '5000');
if (!Number.isInteger(port) || port < 1 || port > 65535) {
  console.error(`EDICT_REGISTRY_PORT must be a port number, got ${JSON.stringify(process.env.EDICT_REGISTRY_PORT)}`);
  process.exit(1);
}
const storage = process.env.EDICT_REGISTRY_STORAGE ?? join(tmpdir(), 'edict-local-registry');
const binary = process.env.EDICT_DOCKER_REGISTRY ?? '/usr/bin/docker-registry';

const ensure = spawnSync('bash', [fileURLToPath(new URL('./ensure-docker-registry.sh', import.meta.url))], {
  stdio: 'inherit',
});
if (ensure.status !== 0) process.exit(1);

mkdirSync(join(storage, 'data'), { recursive: true });
const configPath = join(storage, 'config.yml');
const host = `127.0.0.1:${port}`;
writeFileSync(
  configPath,
  [
    'version: 0.1',
    'log:',
    '  level: info',
    'storage:',
    '  filesystem:',
    `    rootdirectory: ${JSON.stringify(join(storage, 'data'))}`,
    '  delete:',
    '    enabled: true',
    'http:',
    `  addr: ${host}`,
    '',
  ].join('\n'),
);

console.log(`OCI registry on http://${host} (storage ${storage}); Ctrl-C stops it.`);
console.log(`Images: ${host}/<repository>:<tag>. For npm start to reach it, set:`);
console.log(`  EDICT_REGISTRY_ALLOWED_ADDRESSES=127.0.0.1 EDICT_INSECURE_REGISTRIES=${host}`);
const child = spawn(binary, ['serve', configPath], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 0 : 1)));
child.on('error', (error) => {
  console.error(`could not start ${binary}: ${error.message}`);
  process.exit(1);
});
