// Builds the bundles the image ships (the four controllers, the launcher and the CLI) in one webpack
// run: each with exactly the configuration `nest build <project>` uses (Nest's webpack defaults, then
// the project's own webpack config from nest-cli.json), less Nest's per-project type-check plugin:
// six type checks of the same program would cost minutes; type checking is `npm run typecheck`'s job.
// Usage: node scripts/image/bundle.cjs [project ...]   (default: the six projects of IMAGE_PROJECTS)
const { readFileSync } = require('node:fs');
const { join, resolve } = require('node:path');
const webpack = require('webpack');
const { webpackDefaultsFactory } = require('@nestjs/cli/lib/compiler/defaults/webpack-defaults');

const IMAGE_PROJECTS = [
  'admission-controller',
  'background-controller',
  'reports-controller',
  'cleanup-controller',
  'launcher',
  'cli',
];

const root = resolve(__dirname, '../..');
process.chdir(root);
const nestCli = JSON.parse(readFileSync(join(root, 'nest-cli.json'), 'utf8'));
const noPlugins = { beforeHooks: [], afterHooks: [], afterDeclarationsHooks: [] };

function configuration(name) {
  const project = nestCli.projects[name];
  if (!project || project.type !== 'application') throw new Error(`${name} is not an application of nest-cli.json`);
  const options = { ...nestCli.compilerOptions, ...project.compilerOptions };
  const defaults = webpackDefaultsFactory(
    join(root, project.sourceRoot),
    project.root,
    project.entryFile ?? 'main',
    false,
    options.tsConfigPath,
    noPlugins,
  );
  defaults.plugins = defaults.plugins.filter((plugin) => plugin.constructor.name !== 'ForkTsCheckerWebpackPlugin');
  const own = options.webpackConfigPath ? require(join(root, options.webpackConfigPath)) : {};
  return { ...defaults, ...(typeof own === 'function' ? own(defaults, webpack) : own), name };
}

const names = process.argv.length > 2 ? process.argv.slice(2) : IMAGE_PROJECTS;
webpack(names.map(configuration)).run((error, stats) => {
  if (error) {
    console.error(error);
    process.exit(1);
  }
  if (stats.hasErrors()) {
    console.error(stats.toString({ chunks: false, modules: false, assets: false, colors: false }));
    process.exit(1);
  }
  console.log(`bundled ${names.join(', ')}`);
});
