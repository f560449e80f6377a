/**
 * The container image, checked without a Docker engine (none on these machines): the entry point
 * runs each of the four controllers by name and refuses anything else, the Dockerfile builds each
 * of them in its build stage and runs as a non-root user, and the chart runs the image by those names.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONTROLLER_COMPONENTS } from '@edict/launcher';
import { renderChart } from './helm';

const ENTRYPOINT = resolve('docker', 'entrypoint.mjs');
const DOCKERFILE = readFileSync('Dockerfile', 'utf8');

function entrypoint(args: string[]) {
  const run = spawnSync(process.execPath, [ENTRYPOINT, ...args], {
    encoding: 'utf8',
    env: { ...process.env, EDICT_ENTRYPOINT_DRY_RUN: '1' },
  });
  return { status: run.status, stdout: run.stdout.trim(), stderr: run.stderr };
}

describe('the container image', () => {
  it.each(CONTROLLER_COMPONENTS)('runs the %s by name, from its bundle', (component) => {
    const run = entrypoint([component]);
    expect(run.status).toBe(0);
    expect(run.stdout).toBe(resolve('dist', 'apps', component, 'main.js'));
    // The bundle exists in the image because the build stage builds that Nest project.
    const projects = (JSON.parse(readFileSync('nest-cli.json', 'utf8')) as { projects: Record<string, unknown> })
      .projects;
    expect(projects).toHaveProperty(component);
    expect(DOCKERFILE).toContain(`npx nest build ${component}`);
  });

  it('refuses anything but a controller name, listing the names', () => {
    for (const args of [[], ['launcher'], ['../cli']]) {
      const run = entrypoint(args);
      expect(run.status).toBe(2);
      expect(run.stderr).toContain('one of admission-controller, background-controller');
    }
  });

  it('is multi-stage and runs as a numeric non-root user', () => {
    expect(DOCKERFILE.match(/^FROM /gm)).toHaveLength(2);
    expect(DOCKERFILE).toMatch(/^COPY --from=build /m);
    const user = /^USER (\d+):(\d+)$/m.exec(DOCKERFILE);
    expect(Number(user?.[1])).toBeGreaterThan(0);
    expect(DOCKERFILE).toMatch(/^ENTRYPOINT \["node", "\/app\/docker\/entrypoint\.mjs"\]$/m);
  });

  it('is what the chart runs, one controller per Deployment, on a read-only root filesystem', () => {
    const deployments = renderChart().filter((object) => object.kind === 'Deployment');
    const containers = deployments.map(
      (deployment) =>
        (deployment['spec'] as { template: { spec: { containers: Array<Record<string, unknown>> } } }).template.spec
          .containers[0]!,
    );
    expect(containers.map((container) => (container['args'] as string[]).join(' ')).sort()).toEqual(
      [...CONTROLLER_COMPONENTS].sort(),
    );
    for (const container of containers) {
      expect(container['image']).toBe('ghcr.io/edict-policy/edict:0.1.0');
      expect(container['securityContext']).toMatchObject({ readOnlyRootFilesystem: true, runAsNonRoot: true });
    }
  });
});
