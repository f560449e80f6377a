/** `node dist/apps/reports-controller/main.js`: configuration from the environment, graceful stop on SIGTERM/SIGINT. */
import 'reflect-metadata';
import { runFromEnvironment } from '@edict/controller-runtime';
import { startReportsController } from './bootstrap';
import { loadReportsConfig } from './config/reports-config';

runFromEnvironment('ReportsController', loadReportsConfig, (config) => startReportsController(config));
