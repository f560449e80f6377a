/** The answer of `GET /admin/certificates` (public parts only: never a private key). */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class CertificateDto {
  @ApiProperty({ example: 'CN=edict-svc.edict.svc' })
  subject!: string;

  @ApiProperty({ example: 'CN=edict-ca' })
  issuer!: string;

  @ApiProperty()
  serialNumber!: string;

  @ApiProperty({ type: [String], example: ['DNS:edict-svc.edict.svc', 'IP Address:127.0.0.1'] })
  subjectAltNames!: string[];

  @ApiProperty({ format: 'date-time' })
  notBefore!: string;

  @ApiProperty({ format: 'date-time' })
  notAfter!: string;

  @ApiProperty({ description: 'SHA-256 fingerprint', example: 'AB:CD:...' })
  fingerprint256!: string;

  @ApiProperty()
  isCa!: boolean;

  @ApiProperty({
    format: 'date-time',
    description: 'From when the leader replaces it (notAfter minus the renew-before window)',
  })
  renewalDueAt!: string;
}

export class CertificatesDto {
  @ApiProperty({ description: 'A serving certificate and key are loaded' })
  ready!: boolean;

  @ApiPropertyOptional({ description: 'Content hash of the loaded material' })
  version?: string;

  @ApiPropertyOptional({ description: 'Why the last read of the Secrets kept the previous material' })
  lastError?: string;

  @ApiPropertyOptional({ type: CertificateDto, description: 'The certificate the webhooks serve' })
  serving?: CertificateDto;

  @ApiProperty({ type: [CertificateDto], description: 'The CA bundle clients trust, oldest first' })
  ca!: CertificateDto[];

  @ApiProperty({ example: 'edict-svc.edict.svc.kyverno-tls-ca' })
  caSecret!: string;

  @ApiProperty({ example: 'edict-svc.edict.svc.kyverno-tls-pair' })
  servingSecret!: string;

  @ApiProperty({ description: 'How long before expiry the serving certificate is renewed' })
  renewBeforeMs!: number;

  @ApiProperty({ description: 'How long before expiry a new CA is added' })
  caRenewBeforeMs!: number;

  @ApiProperty({ description: 'How often the leader checks (and every replica re-reads) the certificates' })
  checkIntervalMs!: number;

  @ApiPropertyOptional({
    format: 'date-time',
    description: 'The earliest renewal due (serving certificate or newest CA); the first check after it renews',
  })
  nextRenewalAt?: string;
}
