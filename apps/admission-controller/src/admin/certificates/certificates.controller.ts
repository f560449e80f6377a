/** `GET /admin/certificates`: the CA and serving certificate this replica serves with (no keys). */
import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CERT_OPTIONS, TlsMaterial, type ResolvedCertOptions } from '@edict/cert';
import type { ControllerConfig } from '../../config/controller-config';
import { CONTROLLER_CONFIG } from '../../config/tokens';
import { certificatesView } from './certificate-views';
import { CertificatesDto } from './certificates.dto';

@ApiTags('admin')
@Controller('admin/certificates')
export class CertificatesController {
  constructor(
    private readonly material: TlsMaterial,
    @Inject(CERT_OPTIONS) private readonly options: ResolvedCertOptions,
    @Inject(CONTROLLER_CONFIG) private readonly settings: ControllerConfig,
  ) {}

  @Get()
  @ApiOperation({ summary: 'CA and serving certificate: subject, SANs, validity, fingerprint, next renewal' })
  @ApiOkResponse({ type: CertificatesDto })
  certificates(): CertificatesDto {
    return certificatesView(
      this.material.current(),
      {
        renewBeforeMs: this.options.renewBeforeMs,
        caRenewBeforeMs: this.options.caRenewBeforeMs,
        checkIntervalMs: this.settings.certCheckIntervalMs,
        caSecret: this.options.caSecretName,
        servingSecret: this.options.pairSecretName,
      },
      this.material.lastError(),
    );
  }
}
