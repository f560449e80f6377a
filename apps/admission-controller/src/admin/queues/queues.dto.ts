/** The answer of `GET /admin/queues`. */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class ReviewQueueDto {
  @ApiProperty({ description: 'Reviews (and evaluations) running now' })
  inFlight!: number;

  @ApiProperty({ description: 'Reviews waiting for a slot' })
  queued!: number;

  @ApiProperty({ description: 'EDICT_MAX_IN_FLIGHT' })
  maxInFlight!: number;

  @ApiProperty({ description: 'EDICT_MAX_QUEUED; beyond it a review is answered by its failure policy at once' })
  maxQueued!: number;
}

export class AuditReportQueueDto {
  @ApiProperty({ description: 'The report queue is part of this controller' })
  wired!: boolean;

  @ApiPropertyOptional({ description: 'Reports waiting to be written' })
  depth?: number;

  @ApiPropertyOptional({ description: 'Reports being written now' })
  active?: number;

  @ApiPropertyOptional()
  capacity?: number;

  @ApiPropertyOptional()
  workers?: number;

  @ApiPropertyOptional({ description: 'Accepted since start' })
  accepted?: number;

  @ApiPropertyOptional({
    description: 'Merged into a report waiting for the same resource since start (written once for both)',
  })
  coalesced?: number;

  @ApiPropertyOptional({ description: 'Dropped since start (queue full or stopping)' })
  dropped?: number;

  @ApiPropertyOptional({ description: 'Written since start' })
  done?: number;

  @ApiPropertyOptional({ description: 'Failed since start' })
  failed?: number;
}

export class QueueDepthDto {
  @ApiProperty({ example: 'events' })
  name!: string;

  @ApiProperty()
  depth!: number;

  @ApiPropertyOptional()
  active?: number;

  @ApiPropertyOptional()
  capacity?: number;

  @ApiPropertyOptional()
  dropped?: number;
}

export class QueuesDto {
  @ApiProperty({ type: ReviewQueueDto })
  reviews!: ReviewQueueDto;

  @ApiProperty({ type: AuditReportQueueDto })
  auditReports!: AuditReportQueueDto;

  @ApiProperty({
    type: [QueueDepthDto],
    description:
      'The after-admission queues (audits, UpdateRequests, events; depth counts those in progress) and any ' +
      'queue registered through ADMIN_QUEUE_PROBES',
  })
  others!: QueueDepthDto[];
}
