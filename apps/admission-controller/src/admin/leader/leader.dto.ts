/** The answer of `GET /admin/leader`. */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class LeaderStateDto {
  @ApiProperty({ description: "This replica's holder identity", example: 'edict-7d9f-abcde_1b2c' })
  identity!: string;

  @ApiProperty({ description: 'This replica leads now' })
  isLeader!: boolean;

  @ApiPropertyOptional({ description: 'The holder last observed in the Lease (absent: none, or released)' })
  holder?: string;

  @ApiProperty({ example: 'edict-admission-controller' })
  leaseName!: string;

  @ApiProperty({ example: 'edict' })
  leaseNamespace!: string;

  @ApiProperty()
  leaseTransitions!: number;

  @ApiPropertyOptional({
    description: 'When this replica last saw the Lease record change (every renewal changes it)',
    format: 'date-time',
  })
  observedAt?: string;

  @ApiProperty({ description: 'The observed record is still within its lease duration' })
  leaseValid!: boolean;

  @ApiPropertyOptional({
    description: "When the observed holder's lease runs out unless renewed (observedAt + leaseDurationMs)",
    format: 'date-time',
  })
  leaseExpiresAt?: string;

  @ApiProperty()
  leaseDurationMs!: number;

  @ApiProperty()
  renewDeadlineMs!: number;

  @ApiProperty()
  retryPeriodMs!: number;
}
