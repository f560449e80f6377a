// Test-only background controller replica, as its own process so that a test can SIGKILL it:
// `node -r <repo>/scripts/register-ts.cjs background-main.cjs`, configured by BACKGROUND_OVERRIDES (JSON of
// BackgroundConfig fields). Prints `started` once the app runs.
require('reflect-metadata');
const { loadBackgroundConfig } = require('../../../../apps/background-controller/src/config/background-config.ts');
const { startBackgroundController } = require('../../../../apps/background-controller/src/bootstrap.ts');

const overrides = JSON.parse(process.env.BACKGROUND_OVERRIDES ?? '{}');
startBackgroundController(loadBackgroundConfig({}, overrides), { logger: ['error', 'warn'] }).then(
  () => process.stdout.write('started\n'),
  (error) => {
    process.stderr.write(`${error?.stack ?? error}\n`);
    process.exit(1);
  },
);
