/** `GET /admin/policies[/...]`: the policy cache as the webhooks read it. */
import { Controller, Get, NotFoundException, Param } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { PolicyCache } from '@edict/policy';
import { PolicyCacheStateDto, PolicyLookupDto } from './policies.dto';
import { policyCacheState, policyLookup } from './policy-views';

@ApiTags('admin')
@Controller('admin/policies')
export class PoliciesController {
  constructor(private readonly cache: PolicyCache) {}

  @Get()
  @ApiOperation({
    summary: 'Policies as loaded, with the rules the engine runs (autogen included), invalid ones and exceptions',
  })
  @ApiOkResponse({ type: PolicyCacheStateDto })
  list(): PolicyCacheStateDto {
    return policyCacheState(this.cache.snapshot(), this.cache.hasSynced());
  }

  @Get(':name')
  @ApiOperation({ summary: 'One ClusterPolicy as the engine runs it (or why the cache keeps it out)' })
  @ApiParam({ name: 'name', example: 'require-team' })
  @ApiOkResponse({ type: PolicyLookupDto })
  @ApiNotFoundResponse({ description: 'No such policy in the cache' })
  clusterPolicy(@Param('name') name: string): PolicyLookupDto {
    return this.lookup(name);
  }

  @Get(':namespace/:name')
  @ApiOperation({ summary: 'One namespaced Policy as the engine runs it (or why the cache keeps it out)' })
  @ApiOkResponse({ type: PolicyLookupDto })
  @ApiNotFoundResponse({ description: 'No such policy in the cache' })
  policy(@Param('namespace') namespace: string, @Param('name') name: string): PolicyLookupDto {
    return this.lookup(`${namespace}/${name}`);
  }

  private lookup(key: string): PolicyLookupDto {
    const found = policyLookup(this.cache.snapshot(), key);
    if (!found) throw new NotFoundException(`no policy ${key} in the policy cache`);
    return found;
  }
}
