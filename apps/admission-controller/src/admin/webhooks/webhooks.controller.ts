/** `GET /admin/webhooks`: the webhook configurations Edict manages, in the cluster and as desired. */
import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { WebhookStateService } from './webhook-state.service';
import { WebhooksDto } from './webhooks.dto';

@ApiTags('admin')
@Controller('admin/webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhookStateService) {}

  @Get()
  @ApiOperation({
    summary: 'Validating/MutatingWebhookConfigurations: as in the cluster, as built from the policies, in sync or not',
  })
  @ApiOkResponse({ type: WebhooksDto })
  state(): Promise<WebhooksDto> {
    return this.webhooks.state();
  }
}
