/**
 * The DSL schema of Kyverno's ImageValidatingPolicy and NamespacedImageValidatingPolicy (one spec,
 * policies.kyverno.io ImageValidatingPolicySpec): what the policy matches (matchConstraints, images
 * by glob or CEL), where images come from (images extractors), who may sign them (attestors: Cosign
 * or Notary, exactly one per attestor), which attestations to read, the digest settings
 * (validationConfigurations, each true unless set) and the CEL checks. Their CRDs are generated from
 * it, so a misspelled field or an unknown enum value is refused by the API server as by Kyverno.
 * CEL and the attestor references inside expressions are judged by the policy validation webhook.
 */
import { arr, bool, map, obj, str, type Schema } from '../policy/schema-dsl';
import {
  auditAnnotationSchema,
  autogenTargetSchema,
  conditionStatusSchema,
  evaluationSchema,
  failurePolicySchema,
  matchConditionSchema,
  matchResourcesSchema,
  strings,
  validationActionsSchema,
  validationSchema,
  variableSchema,
  webhookConfigurationSchema,
} from './cel-policy-schemas';

/** Kyverno's StringOrExpression: a literal value or a CEL expression giving it, exactly one. */
const stringOrExpression = (description: string): Schema =>
  obj(
    {
      value: str({ description: 'The value as written.' }),
      expression: str({ description: 'A CEL expression giving the value.' }),
    },
    { oneOf: ['value', 'expression'], description },
  );

const matchImageReference = obj(
  {
    glob: str({ description: 'A glob the image reference must match (`*` within a path segment, `**` across).' }),
    expression: str({ description: 'A CEL expression on `ref` (the image reference) giving a bool.' }),
  },
  { oneOf: ['glob', 'expression'], description: 'Which images the policy checks: a glob or a CEL expression.' },
);

const imageExtractor = obj(
  {
    name: str({ description: 'The name, read as images.<name> by the validations.' }),
    expression: str({ description: 'A CEL expression giving the list of image references (strings).' }),
  },
  { required: ['expression', 'name'], description: 'Images taken from the resource by a CEL expression.' },
);

const credentials = obj(
  {
    allowInsecureRegistry: bool({
      description: 'Whether registries may be reached over plain HTTP or unverified TLS.',
    }),
    providers: arr(str({ enum: ['default', 'amazon', 'azure', 'google', 'github'] }), {
      description: 'Registry credential providers to use (default, amazon, azure, google, github).',
    }),
    secrets: strings('Image pull Secrets (in the controller namespace) used to authenticate to registries.'),
  },
  { description: 'How the controllers authenticate to the registries.' },
);

const identity = obj(
  {
    issuer: str({ description: 'The OIDC issuer, matched exactly.' }),
    subject: str({ description: 'The certificate subject (SAN), matched exactly.' }),
    issuerRegExp: str({ description: 'A regular expression the issuer must match.' }),
    subjectRegExp: str({ description: 'A regular expression the subject must match.' }),
  },
  { description: 'An identity a keyless signature may carry.' },
);

const cosign = obj(
  {
    key: obj(
      {
        data: str({ description: 'The PEM public key.' }),
        kms: str({ description: 'The KMS URL of the public key.' }),
        hashAlgorithm: str({ description: 'sha224, sha256 (the default), sha384 or sha512.' }),
        expression: str({ description: 'A CEL expression giving the PEM public key.' }),
      },
      { description: 'A public key signatures must verify with.' },
    ),
    keyless: obj(
      {
        identities: arr(identity, { description: 'Identities any one of which the signing certificate must carry.' }),
        roots: str({ description: 'PEM root certificates of the certificate authority (Fulcio by default).' }),
      },
      { required: ['identities'], description: 'Keyless (certificate) signing checked against identities.' },
    ),
    certificate: obj(
      {
        cert: stringOrExpression('The PEM signing certificate.'),
        certChain: stringOrExpression('The PEM chain of the signing certificate, ending with its root.'),
      },
      { description: 'A certificate signatures must verify with.' },
    ),
    source: obj(
      {
        repository: str({ description: 'The repository the signatures and attestations are stored in.' }),
        PullSecrets: arr(
          obj({ name: str({ default: '', description: 'The Secret name.' }) }, { description: 'A pull Secret.' }),
          { description: 'Pull Secrets for the signature repository, in the namespace of the resource.' },
        ),
        tagPrefix: str({ description: 'A prefix of the signature and attestation tags.' }),
      },
      { description: 'Where the signatures and attestations are read from.' },
    ),
    ctlog: obj(
      {
        url: str({ description: 'The Rekor instance (rekor.sigstore.dev by default).' }),
        rekorPubKey: str({ description: 'The PEM public key of a custom Rekor.' }),
        ctLogPubKey: str({ description: 'The PEM public key SCTs are checked against.' }),
        tsaCertChain: str({ description: 'The PEM chain of the RFC 3161 timestamp authority, with its root.' }),
        insecureIgnoreTlog: bool({ description: 'Skips the transparency log check.' }),
        insecureIgnoreSCT: bool({ description: 'Skips the signed certificate timestamp check.' }),
      },
      { description: 'Transparency and certificate log settings.' },
    ),
    tuf: obj(
      {
        root: obj(
          {
            path: str({ description: 'The URL or file of the TUF root.' }),
            data: str({ description: 'The base64 TUF root.' }),
          },
          { description: 'The trusted TUF root.' },
        ),
        mirror: str({ description: 'The base URL of the Sigstore TUF repository.' }),
      },
      { description: "Where Sigstore's trusted root comes from." },
    ),
    annotations: map(str(), { description: 'Annotations the signed payload must carry (others may be there).' }),
  },
  { description: 'Cosign signatures.' },
);

const notary = obj(
  {
    certs: stringOrExpression('The PEM certificates signatures must chain to.'),
    tsaCerts: stringOrExpression("The PEM certificates of the signatures' timestamp authority."),
  },
  { description: 'Notary (notation) signatures.' },
);

const attestor = obj(
  {
    name: str({ description: 'The name, read as attestors.<name> by the validations.' }),
    cosign,
    notary,
  },
  { required: ['name'], oneOf: ['cosign', 'notary'], description: 'A trusted signer: Cosign or Notary.' },
);

const attestation = obj(
  {
    name: str({ description: 'The name, read as attestations.<name> by the validations.' }),
    intoto: obj(
      { type: str({ description: 'The predicate type of the in-toto statement.' }) },
      { required: ['type'], description: 'An in-toto attestation (Cosign layout).' },
    ),
    referrer: obj(
      { type: str({ description: 'The artifact type of the OCI 1.1 referrer.' }) },
      { required: ['type'], description: 'An attestation attached as an OCI 1.1 referrer.' },
    ),
  },
  { required: ['name'], description: 'Image metadata to verify and read.' },
);

const digestSetting = (description: string): Schema => bool({ default: true, description });

const validationConfigurations = obj(
  {
    mutateDigest: digestSetting('Replaces image tags by the digest they resolve to (default true).'),
    verifyDigest: digestSetting('Requires images to be referenced by digest (default true).'),
    required: digestSetting('Requires every matched image to pass a signature or attestation check (default true).'),
  },
  { default: {}, description: 'Digest mutation and verification, and whether verification is required.' },
);

const imageValidatingPolicyAutogen = obj(
  {
    podControllers: obj(
      { controllers: strings('The pod controllers to generate for (e.g. deployments, cronjobs); none when empty.') },
      { description: 'Which pod controllers get generated rules.' },
    ),
  },
  { description: 'What Kyverno generates from the policy.' },
);

/** The spec of ImageValidatingPolicy and NamespacedImageValidatingPolicy (v1, v1beta1 and v1alpha1 alike). */
export const imageValidatingPolicySpecSchema = obj(
  {
    matchConstraints: matchResourcesSchema,
    failurePolicy: failurePolicySchema,
    auditAnnotations: arr(auditAnnotationSchema, { description: 'Audit annotations produced by CEL expressions.' }),
    validationActions: validationActionsSchema,
    matchConditions: arr(matchConditionSchema, {
      description: 'CEL conditions the request must meet (all of them) for the policy to apply; at most 64.',
    }),
    variables: arr(variableSchema, { description: 'Named CEL values, read as variables.<name> by later expressions.' }),
    validationConfigurations,
    matchImageReferences: arr(matchImageReference, {
      description: 'The images checked; an image no entry matches is skipped, even when passed to a function.',
    }),
    credentials,
    images: arr(imageExtractor, { description: 'Images taken from the resource, besides the Pod containers.' }),
    attestors: arr(attestor, { description: 'The trusted signers.' }),
    attestations: arr(attestation, { description: 'The attestations to verify and read.' }),
    validations: arr(validationSchema, { description: 'The CEL checks.' }),
    webhookConfiguration: webhookConfigurationSchema,
    evaluation: evaluationSchema,
    autogen: imageValidatingPolicyAutogen,
  },
  {
    required: ['attestors', 'validations'],
    description: 'What the policy matches, the signers it trusts and the CEL checks it runs on images.',
  },
);

export const imageValidatingPolicyStatusSchema = obj(
  {
    conditionStatus: conditionStatusSchema,
    autogen: obj(
      {
        configs: map(
          obj(
            {
              targets: arr(autogenTargetSchema, { description: 'The resources the generated spec applies to.' }),
              // Kept as written: the controller writes it from the policy's own (checked) spec.
              spec: obj({}, { open: true, description: 'The generated spec.' }),
            },
            { required: ['spec', 'targets'], description: 'One generated configuration.' },
          ),
          { description: 'The generated configurations, by name (defaults, cronjobs).' },
        ),
      },
      { description: 'What autogen generated for pod controllers.' },
    ),
  },
  { description: 'Written by the admission controller: readiness, autogen.' },
);
