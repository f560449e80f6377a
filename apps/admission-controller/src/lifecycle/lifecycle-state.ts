/** Whether the controller is shutting down: readiness turns false first, before anything stops. */
import { Injectable } from '@nestjs/common';

@Injectable()
export class LifecycleState {
  private stopping = false;

  isShuttingDown(): boolean {
    return this.stopping;
  }

  beginShutdown(): void {
    this.stopping = true;
  }
}
