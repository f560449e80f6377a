/** `node dist/apps/background-controller/main.js`: configuration from the environment, graceful stop on SIGTERM/SIGINT. */
import 'reflect-metadata';
import { runFromEnvironment } from '@edict/controller-runtime';
import { startBackgroundController } from './bootstrap';
import { loadBackgroundConfig } from './config/background-config';

runFromEnvironment('BackgroundController', loadBackgroundConfig, (config) => startBackgroundController(config));
