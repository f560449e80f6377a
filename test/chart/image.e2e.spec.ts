/**
 * The container image's entry point and the chart's use of it, without building the image: the entry
 * point runs each of the four controllers, the launcher and the CLI by name and refuses anything
 * else, the image build bundles each of them, and the chart runs the image by the controllers' names.
 * The image itself, built and run: test/image/image.process.spec.ts.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONTROLLER_COMPONENTS } from '@edict/launcher';
import { renderChart } from './helm';

const ENTRYPOINT = resolve('docker', 'entrypoint.mjs');
const IMAGE_BUILD = readFileSync('scripts/image/build.sh', 'utf8');

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
    expect(IMAGE_BUILD).toMatch(new RegExp(`for name in [a-z -]*\\b${component}\\b`));
  });

  it.each([
    ['launcher', 'launcher'],
    ['edict', 'cli'],
  ])('runs the %s from its bundle', (name, bundle) => {
    const run = entrypoint([name]);
    expect(run.status).toBe(0);
    expect(run.stdout).toBe(resolve('dist', 'apps', bundle, 'main.js'));
    expect(IMAGE_BUILD).toMatch(new RegExp(`for name in [a-z -]*\\b${bundle}\\b`));
  });

  it('refuses anything but a name it runs, listing the names', () => {
    for (const args of [[], ['cli'], ['../cli'], ['constructor']]) {
      const run = entrypoint(args);
      expect(run.status).toBe(2);
      expect(run.stderr).toContain('one of admission-controller, background-controller');
    }
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
