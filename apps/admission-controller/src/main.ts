/** `node dist/apps/admission-controller/main.js`: configuration from the environment, graceful stop on SIGTERM/SIGINT. */
import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { startController } from './bootstrap';
import { loadControllerConfig } from './config/controller-config';

async function main(): Promise<void> {
  const config = loadControllerConfig(process.env);
  const controller = await startController(config);
  const logger = new Logger('AdmissionController');
  const shutdown = (signal: string) => {
    logger.log(`${signal}: shutting down`);
    controller.stop().then(
      () => process.exit(0),
      (error: Error) => {
        logger.error(`shutdown failed: ${error.message}`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: Error) => {
  console.error(error.message);
  process.exit(1);
});
