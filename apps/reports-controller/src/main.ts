/** `node dist/apps/reports-controller/main.js`: configuration from the environment, graceful stop on SIGTERM/SIGINT. */
import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { startReportsController } from './bootstrap';
import { loadReportsConfig } from './config/reports-config';

async function main(): Promise<void> {
  const controller = await startReportsController(loadReportsConfig(process.env));
  const logger = new Logger('ReportsController');
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
