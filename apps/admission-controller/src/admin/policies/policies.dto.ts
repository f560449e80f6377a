/** The shapes `GET /admin/policies` answers with, documented for Swagger. */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class ProblemDto {
  @ApiProperty({ enum: ['error', 'warning'] })
  severity!: 'error' | 'warning';

  @ApiPropertyOptional({ description: 'Field path in the object', example: 'spec.rules[0].match' })
  path?: string;

  @ApiProperty({ example: 'a rule must match at least one kind' })
  message!: string;
}

export class RuleSummaryDto {
  @ApiProperty({ example: 'autogen-check-team' })
  name!: string;

  @ApiProperty({ enum: ['validate', 'mutate', 'generate', 'verifyImages'], isArray: true })
  types!: string[];

  @ApiProperty({ description: 'Added by Kyverno autogen for Pod controllers (not in the policy as written)' })
  autogen!: boolean;
}

export class PolicySummaryDto {
  @ApiProperty({ description: '`name` for a ClusterPolicy, `namespace/name` for a Policy', example: 'require-team' })
  key!: string;

  @ApiProperty({ enum: ['ClusterPolicy', 'Policy'] })
  kind!: 'ClusterPolicy' | 'Policy';

  @ApiProperty()
  name!: string;

  @ApiPropertyOptional()
  namespace?: string;

  @ApiPropertyOptional()
  uid?: string;

  @ApiPropertyOptional()
  resourceVersion?: string;

  @ApiProperty({ enum: ['Fail', 'Ignore'], description: 'Which webhook path serves it' })
  failurePolicy!: 'Fail' | 'Ignore';

  @ApiProperty({ description: 'Served to the admission webhooks (spec.admission is not false)' })
  admission!: boolean;

  @ApiProperty({ description: 'Also applied by background scans' })
  background!: boolean;

  @ApiPropertyOptional({ enum: ['Enforce', 'Audit'], description: 'spec.validationFailureAction, when set' })
  validationFailureAction?: string;

  @ApiProperty({ enum: ['validate', 'mutate', 'mutate-existing', 'generate', 'verify-images'], isArray: true })
  ruleTypes!: string[];

  @ApiProperty({ description: 'The rules the engine runs, autogen rules included, in order', type: [RuleSummaryDto] })
  rules!: RuleSummaryDto[];

  @ApiProperty({ description: 'Validation warnings (the policy is in use)', type: [ProblemDto] })
  warnings!: ProblemDto[];
}

export class PolicyDetailDto extends PolicySummaryDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'The policy as the engine runs it: metadata and spec with the autogen rules appended',
  })
  policy!: Record<string, unknown>;
}

export class EnforcedInsteadDto {
  @ApiProperty({
    enum: ['last-valid', 'enforcing-validate-rules'],
    description:
      'last-valid: the last version that passed validation; enforcing-validate-rules: none is known since the ' +
      "controller started, so the stored version's Enforce validate rules as written",
  })
  basis!: 'last-valid' | 'enforcing-validate-rules';

  @ApiPropertyOptional({ description: 'The resourceVersion of the version enforced' })
  resourceVersion?: string;
}

export class InvalidPolicyDto {
  @ApiProperty()
  key!: string;

  @ApiProperty({ enum: ['ClusterPolicy', 'Policy'] })
  kind!: 'ClusterPolicy' | 'Policy';

  @ApiProperty()
  name!: string;

  @ApiPropertyOptional()
  namespace?: string;

  @ApiPropertyOptional()
  resourceVersion?: string;

  @ApiProperty({ description: 'Why the stored version is not used (at least one error)', type: [ProblemDto] })
  problems!: ProblemDto[];

  @ApiPropertyOptional({
    type: () => EnforcedInsteadDto,
    description: 'What stays enforced meanwhile (absent: nothing)',
  })
  enforced?: EnforcedInsteadDto;
}

export class ExceptionTargetDto {
  @ApiProperty({ example: 'require-team' })
  policyName!: string;

  @ApiProperty({ type: [String], example: ['check-team', 'autogen-check-team'] })
  ruleNames!: string[];
}

export class ExceptionDto {
  @ApiProperty({ example: 'team-a/let-web-in' })
  key!: string;

  @ApiProperty()
  name!: string;

  @ApiPropertyOptional()
  namespace?: string;

  @ApiProperty({ description: 'False when its namespace is outside the exception namespaces (then ignored)' })
  used!: boolean;

  @ApiProperty({ type: [ExceptionTargetDto] })
  exceptions!: ExceptionTargetDto[];

  @ApiProperty({ type: [ProblemDto] })
  problems!: ProblemDto[];
}

export class PolicyCacheStateDto {
  @ApiProperty({ description: 'Increases with every change the cache took in' })
  generation!: number;

  @ApiProperty({ description: 'The informers delivered their first full lists' })
  synced!: boolean;

  @ApiProperty({ type: [PolicySummaryDto] })
  policies!: PolicySummaryDto[];

  @ApiProperty({ description: 'Policies the cache keeps out, with why', type: [InvalidPolicyDto] })
  invalid!: InvalidPolicyDto[];

  @ApiProperty({ type: [ExceptionDto] })
  exceptions!: ExceptionDto[];
}

export class PolicyLookupDto {
  @ApiProperty({ enum: ['loaded', 'invalid'], description: 'In use, or kept out of the cache' })
  status!: 'loaded' | 'invalid';

  @ApiPropertyOptional({ type: PolicyDetailDto })
  loaded?: PolicyDetailDto;

  @ApiPropertyOptional({ type: InvalidPolicyDto })
  invalid?: InvalidPolicyDto;
}
