import type { KubeObject } from '@edict/foundation';
import type {
  AuditAnnotation,
  EvaluationConfiguration,
  MatchCondition,
  MatchResources,
  Validation,
  ValidationActionName,
  Variable,
} from '../api/types';

// The ImageValidatingPolicy API as Kyverno serves it (api/policies.kyverno.io/v1
// imagevalidating_policy.go; v1alpha1 and v1beta1 have the same fields). Objects arrive as parsed
// YAML/JSON: every field is optional here and checked by imageValidatingPolicyErrors.

export type ImageValidatingPolicyKind = 'ImageValidatingPolicy' | 'NamespacedImageValidatingPolicy';

export interface MatchImageReference {
  glob?: string;
  expression?: string;
}

export interface ImageValidationConfiguration {
  /** Replace tags with digests (default true). */
  mutateDigest?: boolean;
  /** Images must carry a digest (default true). */
  verifyDigest?: boolean;
  /** Every matched image must have been verified by a signature or attestation check (default true). */
  required?: boolean;
}

export interface ImageExtractor {
  name?: string;
  expression?: string;
}

export type CredentialsProvider = 'default' | 'amazon' | 'azure' | 'google' | 'github';

export interface ImageCredentials {
  allowInsecureRegistry?: boolean;
  providers?: CredentialsProvider[];
  /** Secrets in Kyverno's namespace. */
  secrets?: string[];
}

export interface StringOrExpression {
  value?: string;
  expression?: string;
}

export interface CosignKey {
  data?: string;
  kms?: string;
  hashAlgorithm?: string;
  expression?: string;
}

export interface KeylessIdentity {
  issuer?: string;
  subject?: string;
  issuerRegExp?: string;
  subjectRegExp?: string;
}

export interface CosignKeyless {
  identities?: KeylessIdentity[];
  roots?: string;
}

export interface CosignCertificate {
  cert?: StringOrExpression;
  certChain?: StringOrExpression;
}

export interface CosignSource {
  repository?: string;
  PullSecrets?: { name?: string }[];
  tagPrefix?: string;
}

export interface CosignCTLog {
  url?: string;
  rekorPubKey?: string;
  ctLogPubKey?: string;
  tsaCertChain?: string;
  insecureIgnoreTlog?: boolean;
  insecureIgnoreSCT?: boolean;
}

export interface CosignTUF {
  root?: { path?: string; data?: string };
  mirror?: string;
}

export interface CosignAttestor {
  key?: CosignKey;
  keyless?: CosignKeyless;
  certificate?: CosignCertificate;
  source?: CosignSource;
  ctlog?: CosignCTLog;
  tuf?: CosignTUF;
  annotations?: Record<string, string>;
}

export interface NotaryAttestor {
  certs?: StringOrExpression;
  tsaCerts?: StringOrExpression;
}

export interface Attestor {
  name?: string;
  cosign?: CosignAttestor;
  notary?: NotaryAttestor;
}

export interface Attestation {
  name?: string;
  intoto?: { type?: string };
  referrer?: { type?: string };
}

export interface ImageValidatingPolicySpec {
  matchConstraints?: MatchResources;
  failurePolicy?: 'Fail' | 'Ignore';
  auditAnnotations?: AuditAnnotation[];
  validationActions?: ValidationActionName[];
  matchConditions?: MatchCondition[];
  variables?: Variable[];
  validationConfigurations?: ImageValidationConfiguration;
  matchImageReferences?: MatchImageReference[];
  credentials?: ImageCredentials;
  /** Kyverno's `ImageExtractors`, written `images`. */
  images?: ImageExtractor[];
  attestors?: Attestor[];
  attestations?: Attestation[];
  validations?: Validation[];
  webhookConfiguration?: { timeoutSeconds?: number };
  evaluation?: EvaluationConfiguration;
  autogen?: { podControllers?: { controllers?: string[] } };
}

/** An ImageValidatingPolicy or NamespacedImageValidatingPolicy object. */
export interface ImageValidatingPolicyObject {
  apiVersion?: string;
  kind?: string;
  metadata?: KubeObject['metadata'];
  spec?: ImageValidatingPolicySpec;
}
