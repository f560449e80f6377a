/** `GET /admin/leader`: this replica's view of the leader election. */
import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { LEADER_OPTIONS, LeaderService, type ResolvedLeaderOptions } from '@edict/leader';
import { LeaderStateDto } from './leader.dto';

@ApiTags('admin')
@Controller('admin/leader')
export class LeaderController {
  constructor(
    private readonly leader: LeaderService,
    @Inject(LEADER_OPTIONS) private readonly options: ResolvedLeaderOptions,
  ) {}

  @Get()
  @ApiOperation({ summary: 'Identity, leadership, the current holder and the lease timings' })
  @ApiOkResponse({ type: LeaderStateDto })
  state(): LeaderStateDto {
    const state = this.leader.state();
    const { leaseDurationMs, renewDeadlineMs, retryPeriodMs } = this.options;
    return {
      identity: state.identity,
      isLeader: state.isLeader,
      ...(state.leader ? { holder: state.leader } : {}),
      leaseName: state.leaseName,
      leaseNamespace: state.leaseNamespace,
      leaseTransitions: state.leaseTransitions,
      ...(state.observedAt !== undefined ? { observedAt: new Date(state.observedAt).toISOString() } : {}),
      leaseValid: state.leaseValid,
      ...(state.observedAt !== undefined && state.leader
        ? { leaseExpiresAt: new Date(state.observedAt + leaseDurationMs).toISOString() }
        : {}),
      leaseDurationMs,
      renewDeadlineMs,
      retryPeriodMs,
    };
  }
}
