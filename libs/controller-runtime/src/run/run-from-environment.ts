/** A controller's `main`: configuration from the environment, started, stopped gracefully on SIGTERM/SIGINT. */
import { Logger } from '@nestjs/common';

export interface Stoppable {
  stop(): Promise<void>;
}

export function runFromEnvironment<C>(
  name: string,
  load: (env: NodeJS.ProcessEnv) => C,
  start: (config: C) => Promise<Stoppable>,
): void {
  const run = async () => {
    const controller = await start(load(process.env));
    const logger = new Logger(name);
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
  };
  run().catch((error: Error) => {
    console.error(error.message);
    process.exit(1);
  });
}
