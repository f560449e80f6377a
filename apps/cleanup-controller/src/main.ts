/** `node dist/apps/cleanup-controller/main.js`: configuration from the environment, graceful stop on SIGTERM/SIGINT. */
import 'reflect-metadata';
import { runFromEnvironment } from '@edict/controller-runtime';
import { startCleanupController } from './bootstrap';
import { loadCleanupConfig } from './config/cleanup-config';

runFromEnvironment('CleanupController', loadCleanupConfig, (config) => startCleanupController(config));
