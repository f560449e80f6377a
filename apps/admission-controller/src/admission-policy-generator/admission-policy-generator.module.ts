/** The admission policy generator (VAP/MAP from Kyverno policies), run on the leader. */
import { Module } from '@nestjs/common';
import { AdmissionPolicyGenerator } from './admission-policy-generator';

@Module({ providers: [AdmissionPolicyGenerator] })
export class AdmissionPolicyGeneratorModule {}
