/** `node dist/apps/cleanup-controller/main.js`: configuration from the environment, graceful stop on SIGTERM/SIGINT. */
import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { startCleanupController } from './bootstrap';
import { loadCleanupConfig } from './config/cleanup-config';

async function main(): Promise<void> {
  const controller = await startCleanupController(loadCleanupConfig(process.env));
  const logger = new Logger('CleanupController');
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
