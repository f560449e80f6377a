import { isObject } from '@edict/foundation';
import type { PolicyFieldError } from '../api/types';
import { schemaErrors as sharedSchemaErrors } from '../compile/schema-errors';
import { specChecks } from '../compile/spec-checks';

const CEL_IDENTIFIER = /^[_a-zA-Z][_a-zA-Z0-9]*$/;
const HASH_ALGORITHMS = ['sha224', 'sha256', 'sha384', 'sha512'];
const PROVIDERS = ['default', 'amazon', 'azure', 'google', 'github'];

/**
 * The structural problems of an ImageValidatingPolicy spec: those it shares with ValidatingPolicy
 * (actions, failurePolicy, matchConstraints, conditions, variables...), the CRD's one-of rules of
 * matchImageReferences, attestors and attestations, and what Edict refuses rather than ignore
 * (KMS keys, credential providers other than `default`, tag-prefix discovery, TUF roots by path).
 */
export function imageValidatingSchemaErrors(spec: unknown): PolicyFieldError[] {
  const errors = sharedSchemaErrors(spec);
  if (!isObject(spec)) return errors;
  const { push, list } = specChecks(errors);
  const text = (value: unknown) => typeof value === 'string' && value !== '';
  const exactlyOne = (field: string, item: Record<string, unknown>, keys: readonly string[]) => {
    const given = keys.filter((key) => item[key] !== undefined && item[key] !== null && item[key] !== '');
    if (given.length !== 1) {
      push(field, `Invalid value: must specify exactly one of ${keys.map((key) => `"${key}"`).join(', ')}`);
    }
    return given[0];
  };
  const named = (field: string, items: unknown[], identifier: boolean) => {
    const names = new Set<string>();
    items.forEach((item, i) => {
      if (!isObject(item)) return push(`${field}[${i}]`, 'Invalid value: must be an object');
      const name = item.name;
      if (!text(name)) return push(`${field}[${i}].name`, 'Required value');
      if (identifier && !CEL_IDENTIFIER.test(name as string)) {
        push(`${field}[${i}].name`, `Invalid value: ${JSON.stringify(name)}: must be a CEL identifier`);
      } else if (names.has(name as string)) push(`${field}[${i}].name`, `Duplicate value: ${JSON.stringify(name)}`);
      names.add(name as string);
    });
  };

  list('spec.matchImageReferences', spec.matchImageReferences).forEach((reference, i) => {
    if (!isObject(reference)) return push(`spec.matchImageReferences[${i}]`, 'Invalid value: must be an object');
    exactlyOne(`spec.matchImageReferences[${i}]`, reference, ['glob', 'expression']);
  });

  const extractors = list('spec.images', spec.images);
  named('spec.images', extractors, true);
  extractors.forEach((extractor, i) => {
    if (isObject(extractor) && !text(extractor.expression)) push(`spec.images[${i}].expression`, 'Required value');
  });

  const attestors = list('spec.attestors', spec.attestors);
  named('spec.attestors', attestors, true);
  attestors.forEach((attestor, i) => {
    if (!isObject(attestor)) return;
    const at = `spec.attestors[${i}]`;
    const kind = exactlyOne(at, attestor, ['cosign', 'notary']);
    if (kind === 'cosign') cosignErrors(`${at}.cosign`, attestor.cosign, push);
    if (kind === 'notary') {
      const notary = attestor.notary;
      if (!isObject(notary) || notary.certs === undefined) return push(`${at}.notary.certs`, 'Required value');
      stringOrExpression(`${at}.notary.certs`, notary.certs, push);
      if (notary.tsaCerts !== undefined) stringOrExpression(`${at}.notary.tsaCerts`, notary.tsaCerts, push);
    }
  });

  const attestations = list('spec.attestations', spec.attestations);
  named('spec.attestations', attestations, true);
  attestations.forEach((attestation, i) => {
    if (!isObject(attestation)) return;
    const at = `spec.attestations[${i}]`;
    const kind = exactlyOne(at, attestation, ['intoto', 'referrer']);
    const body = kind ? attestation[kind] : undefined;
    if (kind && (!isObject(body) || !text(body.type))) push(`${at}.${kind}.type`, 'Required value');
  });

  const configurations = spec.validationConfigurations;
  if (configurations !== undefined && configurations !== null) {
    if (!isObject(configurations)) push('spec.validationConfigurations', 'Invalid value: must be an object');
    else {
      for (const key of ['mutateDigest', 'verifyDigest', 'required']) {
        const value = configurations[key];
        if (value !== undefined && value !== null && typeof value !== 'boolean') {
          push(`spec.validationConfigurations.${key}`, `Invalid value: ${JSON.stringify(value)}: must be a boolean`);
        }
      }
    }
  }

  const credentials = spec.credentials;
  if (isObject(credentials)) {
    list('spec.credentials.providers', credentials.providers).forEach((provider, i) => {
      if (typeof provider !== 'string' || !PROVIDERS.includes(provider)) {
        push(
          `spec.credentials.providers[${i}]`,
          `Unsupported value: ${JSON.stringify(provider)}: supported values: ${PROVIDERS.map((p) => `"${p}"`).join(', ')}`,
        );
      } else if (provider !== 'default') {
        push(
          `spec.credentials.providers[${i}]`,
          `Unsupported value: ${JSON.stringify(provider)}: Edict reads registry credentials from Secrets only (the "${provider}" cloud credential helper is not supported)`,
        );
      }
    });
    list('spec.credentials.secrets', credentials.secrets).forEach((secret, i) => {
      if (!text(secret)) push(`spec.credentials.secrets[${i}]`, 'Invalid value: must be a Secret name');
    });
  }
  return errors;
}

function cosignErrors(at: string, cosign: unknown, push: (field: string, message: string) => void): void {
  if (!isObject(cosign)) return push(at, 'Invalid value: must be an object');
  const given = ['key', 'keyless', 'certificate'].filter((key) => isObject(cosign[key]));
  if (given.length !== 1) {
    push(at, 'Invalid value: must specify exactly one of "key", "keyless", "certificate"');
  }
  const key = cosign.key;
  if (isObject(key)) {
    const sources = ['data', 'kms', 'expression'].filter(
      (field) => typeof key[field] === 'string' && key[field] !== '',
    );
    if (sources.length !== 1)
      push(`${at}.key`, 'Invalid value: must specify exactly one of "data", "kms", "expression"');
    if (sources.includes('kms')) {
      push(
        `${at}.key.kms`,
        `Unsupported value: ${JSON.stringify(key.kms)}: Edict verifies with keys given in the policy (KMS keys are not supported)`,
      );
    }
    if (key.hashAlgorithm !== undefined && !HASH_ALGORITHMS.includes(key.hashAlgorithm as string)) {
      push(
        `${at}.key.hashAlgorithm`,
        `Unsupported value: ${JSON.stringify(key.hashAlgorithm)}: supported values: ${HASH_ALGORITHMS.map((h) => `"${h}"`).join(', ')}`,
      );
    }
  }
  const keyless = cosign.keyless;
  if (isObject(keyless)) {
    const identities = Array.isArray(keyless.identities) ? keyless.identities : [];
    if (identities.length === 0) push(`${at}.keyless.identities`, 'Required value: at least one identity');
    identities.forEach((identity, i) => {
      const fields = ['subject', 'subjectRegExp', 'issuer', 'issuerRegExp'];
      if (
        !isObject(identity) ||
        !fields.some((field) => typeof identity[field] === 'string' && identity[field] !== '')
      ) {
        push(`${at}.keyless.identities[${i}]`, 'Invalid value: an identity needs a subject or an issuer');
      }
    });
  }
  const certificate = cosign.certificate;
  if (isObject(certificate)) {
    if (certificate.cert === undefined) push(`${at}.certificate.cert`, 'Required value');
    else stringOrExpression(`${at}.certificate.cert`, certificate.cert, push);
    if (certificate.certChain !== undefined)
      stringOrExpression(`${at}.certificate.certChain`, certificate.certChain, push);
  }
  const source = cosign.source;
  if (isObject(source) && typeof source.tagPrefix === 'string' && source.tagPrefix !== '') {
    push(
      `${at}.source.tagPrefix`,
      `Unsupported value: ${JSON.stringify(source.tagPrefix)}: tag-prefix discovery of signatures is not supported by Edict`,
    );
  }
  const tuf = cosign.tuf;
  if (isObject(tuf) && isObject(tuf.root) && typeof tuf.root.path === 'string' && tuf.root.path !== '') {
    push(
      `${at}.tuf.root.path`,
      `Unsupported value: ${JSON.stringify(tuf.root.path)}: give the TUF root inline in tuf.root.data (Edict reads no files or URLs for it)`,
    );
  }
}

function stringOrExpression(at: string, value: unknown, push: (field: string, message: string) => void): void {
  if (!isObject(value)) return push(at, 'Invalid value: must be an object with "value" or "expression"');
  const given = ['value', 'expression'].filter((key) => typeof value[key] === 'string' && value[key] !== '');
  if (given.length !== 1) push(at, 'Invalid value: must specify exactly one of "value", "expression"');
}
