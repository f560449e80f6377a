/** `node dist/apps/admission-controller/main.js`: configuration from the environment, graceful stop on SIGTERM/SIGINT. */
import 'reflect-metadata';
import { runFromEnvironment } from '@edict/controller-runtime';
import { startController } from './bootstrap';
import { loadControllerConfig } from './config/controller-config';

runFromEnvironment('AdmissionController', loadControllerConfig, (config) => startController(config));
