// The image's entry point: runs the program its first argument names, from its bundle in
// dist/apps/<bundle>/main.js: one of the four controllers (`admission-controller`,
// `background-controller`, `reports-controller`, `cleanup-controller`), the `launcher` (`npm start`'s
// local mode) or the CLI (`edict`, its arguments after the name). Anything else exits with status 2
// and the list of names. The image is built by scripts/image/build.sh (docs/image.md).
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';

export const CONTROLLERS = [
  'admission-controller',
  'background-controller',
  'reports-controller',
  'cleanup-controller',
];

/** Every name the entry point runs, and the bundle folder (dist/apps/<folder>) of each. */
export const ENTRY_POINTS = {
  ...Object.fromEntries(CONTROLLERS.map((name) => [name, name])),
  launcher: 'launcher',
  edict: 'cli',
};

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The bundle that runs `name`, or undefined when the entry point does not run `name`. */
export function controllerMain(name) {
  return Object.hasOwn(ENTRY_POINTS, name) ? join(root, 'dist', 'apps', ENTRY_POINTS[name], 'main.js') : undefined;
}

if (process.argv[1] && pathToFileURL(resolve(process.argv[1])).href === import.meta.url) {
  const name = process.argv[2];
  const main = controllerMain(name);
  if (!main) {
    console.error(`usage: <name>, one of ${Object.keys(ENTRY_POINTS).join(', ')}; got ${JSON.stringify(name ?? '')}`);
    process.exit(2);
  }
  if (process.env.EDICT_ENTRYPOINT_DRY_RUN === '1') {
    // For the image spec: which bundle would run, without running it.
    console.log(main);
  } else {
    // The bundle reads its own arguments from argv[2] on, as when run as `node <bundle> ...`.
    process.argv.splice(1, 2, main);
    // The bundles are CommonJS (webpack's Node target).
    createRequire(import.meta.url)(main);
  }
}
