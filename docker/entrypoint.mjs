// The image's entry point: runs one of the four controllers, named by the first argument
// (`admission-controller`, `background-controller`, `reports-controller`, `cleanup-controller`),
// from its bundle in dist/apps/<name>/main.js. Anything else exits with status 2 and the list of names.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';

export const CONTROLLERS = [
  'admission-controller',
  'background-controller',
  'reports-controller',
  'cleanup-controller',
];

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The bundle that runs `name`, or undefined when `name` is not a controller. */
export function controllerMain(name) {
  return CONTROLLERS.includes(name) ? join(root, 'dist', 'apps', name, 'main.js') : undefined;
}

if (process.argv[1] && pathToFileURL(resolve(process.argv[1])).href === import.meta.url) {
  const name = process.argv[2];
  const main = controllerMain(name);
  if (!main) {
    console.error(`usage: <controller>, one of ${CONTROLLERS.join(', ')}; got ${JSON.stringify(name ?? '')}`);
    process.exit(2);
  }
  if (process.env.EDICT_ENTRYPOINT_DRY_RUN === '1') {
    // For the image spec: which bundle would run, without running it.
    console.log(main);
  } else {
    process.argv.splice(2, 1);
    // The bundles are CommonJS (webpack's Node target).
    createRequire(import.meta.url)(main);
  }
}
