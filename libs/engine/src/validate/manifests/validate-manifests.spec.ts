import { describe, expect, it } from 'vitest';
import type { JsonObject, KubeObject } from '@edict/foundation';
import type { Operation } from '../../core/types';
import type { Rule } from '../../policy/types';
import { EvaluationContext } from '../../variables';
import type { RuleRun } from '../rule-run';
import { newKey, signResource, type TestKey } from '@edict/engine/testing';
import { validateManifests } from './validate-manifests';

const service: KubeObject = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'web', namespace: 'shop' },
  spec: { ports: [{ port: 80, protocol: 'TCP', targetPort: 8080 }], selector: { app: 'web' } },
};

const alice = newKey();
const bob = newKey();
const carol = newKey();

function entry(key: TestKey | string): JsonObject {
  return { keys: { publicKeys: typeof key === 'string' ? key : key.publicPem } };
}

function run(
  manifests: JsonObject,
  resource: KubeObject,
  options: { operation?: Operation; dryRun?: boolean } = {},
): RuleRun {
  const rule = {
    name: 'verify',
    match: { any: [{ resources: { kinds: ['Service'] } }] },
    validate: { manifests },
  } as Rule;
  const request = { resource, operation: options.operation ?? 'CREATE', dryRun: options.dryRun };
  return { rule, ctx: EvaluationContext.forRequest(request), request, resource, context: {} };
}

const oneOf = (...keys: TestKey[]): JsonObject => ({ attestors: [{ count: 1, entries: keys.map(entry) }] });
const allOf = (...keys: TestKey[]): JsonObject => ({ attestors: [{ entries: keys.map(entry) }] });

describe('validateManifests: signatures', () => {
  it('passes a resource whose signed manifest matches and whose signature verifies', () => {
    const response = validateManifests(run(oneOf(alice), signResource(service, [alice])));
    expect(response).toEqual({
      name: 'verify',
      type: 'Validation',
      status: 'pass',
      message:
        'verified manifest signatures; manifest verification succeeded; verifiedCount 1; requiredCount 1; message singed by a valid signer: ',
    });
  });

  it('accepts a plain YAML artifact as well as a tar.gz one', () => {
    expect(validateManifests(run(oneOf(alice), signResource(service, [alice], { format: 'plain' })))?.status).toBe(
      'pass',
    );
  });

  it('verifies RSA and Ed25519 keys too', () => {
    const rsa = newKey('rsa');
    const ed = newKey('ed25519');
    expect(validateManifests(run(oneOf(rsa), signResource(service, [rsa])))?.status).toBe('pass');
    expect(validateManifests(run(oneOf(ed), signResource(service, [ed])))?.status).toBe('pass');
  });

  it('answers error when the signature was made with another key', () => {
    const response = validateManifests(run(oneOf(bob), signResource(service, [alice])));
    expect(response?.status).toBe('error');
    expect(response?.message).toBe(
      'error occurred during manifest verification: .attestors[0].entries[0].keys: failed to verify signature: ' +
        'signature verification failed: invalid signature when validating ASN.1 encoded signature',
    );
  });

  it('fails an unsigned resource, naming each entry', () => {
    const response = validateManifests(run(oneOf(alice, bob), service));
    expect(response?.status).toBe('fail');
    expect(response?.message).toBe(
      'manifest verification failed; verifiedCount 0; requiredCount 1; message ' +
        '.attestors[0].entries[0].keys: YAML manifest not found for this resource: message not found,' +
        '.attestors[0].entries[1].keys: YAML manifest not found for this resource: message not found',
    );
  });

  it('fails a resource that has a message but no signature', () => {
    const signed = signResource(service, [alice]);
    delete (signed.metadata!.annotations as Record<string, string>)['cosign.sigstore.dev/signature'];
    expect(validateManifests(run(oneOf(alice), signed))?.message).toBe(
      'manifest verification failed; verifiedCount 0; requiredCount 1; message ' +
        '.attestors[0].entries[0].keys: failed to verify signature: signature not found',
    );
  });

  it('tries every signature: a resource signed by two keys verifies with either', () => {
    const signed = signResource(service, [alice, bob]);
    expect(Object.keys(signed.metadata!.annotations!)).toContain('cosign.sigstore.dev/signature_1');
    expect(validateManifests(run(oneOf(bob), signed))?.status).toBe('pass');
    expect(validateManifests(run(allOf(alice, bob), signed))?.message).toBe(
      'verified manifest signatures; manifest verification succeeded; verifiedCount 2; requiredCount 2; ' +
        'message singed by a valid signer: ,singed by a valid signer: ',
    );
  });

  it('rejects a base64 message that is not valid', () => {
    const signed = signResource(service, [alice]);
    (signed.metadata!.annotations as Record<string, string>)['cosign.sigstore.dev/message'] = 'not*base64';
    expect(validateManifests(run(oneOf(alice), signed))?.message).toBe(
      'error occurred during manifest verification: .attestors[0].entries[0].keys: YAML manifest not found for this resource: ' +
        'failed to decode base64 message in the annotation: illegal base64 data at input byte 3',
    );
  });
});

describe('validateManifests: attestor counting', () => {
  it('count 1 passes as soon as one entry verifies, even after another entry errored', () => {
    expect(validateManifests(run(oneOf(bob, alice), signResource(service, [alice])))?.message).toBe(
      'verified manifest signatures; manifest verification succeeded; verifiedCount 1; requiredCount 1; message singed by a valid signer: ',
    );
  });

  it('without count every entry must verify; an erroring entry makes the rule an error', () => {
    const response = validateManifests(run(allOf(alice, bob), signResource(service, [alice])));
    expect(response?.status).toBe('error');
    expect(response?.message).toMatch(
      /^error occurred during manifest verification: \.attestors\[0\]\.entries\[1\]\.keys: /,
    );
  });

  it('count 2 needs two verified entries', () => {
    const manifests = { attestors: [{ count: 2, entries: [entry(alice), entry(bob), entry(carol)] }] };
    expect(validateManifests(run(manifests, signResource(service, [alice, carol])))?.message).toBe(
      'verified manifest signatures; manifest verification succeeded; verifiedCount 2; requiredCount 2; ' +
        'message singed by a valid signer: ,singed by a valid signer: ',
    );
  });

  it('every attestor set must pass; the messages of passing sets are joined', () => {
    const manifests = { attestors: [{ entries: [entry(alice)] }, { entries: [entry(bob)] }] };
    const response = validateManifests(run(manifests, signResource(service, [alice, bob])));
    expect(response?.message).toBe(
      'verified manifest signatures; manifest verification succeeded; verifiedCount 1; requiredCount 1; message singed by a valid signer: ,' +
        'manifest verification succeeded; verifiedCount 1; requiredCount 1; message singed by a valid signer: ',
    );
    const unsigned = validateManifests(run(manifests, service));
    expect(unsigned?.message).toMatch(
      /^manifest verification failed; verifiedCount 0; requiredCount 1; message \.attestors\[0\]/,
    );
  });

  it('an empty entry list fails with requiredCount 0; no attestors at all passes', () => {
    expect(validateManifests(run({ attestors: [{ entries: [] }] }, service))?.message).toBe(
      'manifest verification failed; verifiedCount 0; requiredCount 0; message ',
    );
    expect(validateManifests(run({ attestors: [] }, service))?.message).toBe('verified manifest signatures; ');
  });

  it('splits several PEM keys in one publicKeys value into entries, as Kyverno does', () => {
    const both = `${alice.publicPem}\n${bob.publicPem}`;
    const manifests = { attestors: [{ count: 1, entries: [entry(both)] }] };
    expect(validateManifests(run(manifests, signResource(service, [alice])))?.status).toBe('pass');
    // Kyverno reads every key after the first as a key reference (the split leaves a leading newline), so it errors.
    const second = validateManifests(run(manifests, signResource(service, [bob])));
    expect(second?.status).toBe('error');
    expect(second?.message).toContain(
      '.attestors[0].entries[1].keys: failed to verify signature: signature verification failed: public key',
    );
    // Without count, both split keys are required.
    expect(validateManifests(run({ attestors: [{ entries: [entry(both)] }] }, service))?.message).toContain(
      'requiredCount 2',
    );
  });

  it('evaluates nested attestor sets', () => {
    const manifests = { attestors: [{ entries: [{ attestor: { count: 1, entries: [entry(bob), entry(alice)] } }] }] };
    expect(validateManifests(run(manifests, signResource(service, [alice])))?.message).toBe(
      'verified manifest signatures; manifest verification succeeded; verifiedCount 1; requiredCount 1; ' +
        'message manifest verification succeeded; verifiedCount 1; requiredCount 1; message singed by a valid signer: ',
    );
    const broken = validateManifests(run({ attestors: [{ entries: [{ attestor: 'nope' }] }] }, service));
    expect(broken?.message).toBe(
      'error occurred during manifest verification: failed to unmarshal nested attestor .attestors[0].entries[0]: ' +
        '.attestors[0].entries[0].attestor must be an object',
    );
  });

  it('checks the entry annotations before anything else', () => {
    const manifests = { attestors: [{ entries: [{ ...entry(alice), annotations: { team: 'payments' } }] }] };
    expect(validateManifests(run(manifests, signResource(service, [alice])))?.message).toBe(
      'error occurred during manifest verification: annotations mismatch:  does not match expected value payments for key team',
    );
  });
});

describe('validateManifests: comparing the signed manifest with the resource', () => {
  it('fails with the differences when the resource was changed after signing', () => {
    const signed = signResource(service, [alice]);
    const tampered = {
      ...signed,
      spec: { ...(signed.spec as JsonObject), ports: [{ port: 8443, protocol: 'TCP', targetPort: 8080 }] },
    };
    const response = validateManifests(run(oneOf(alice), tampered));
    expect(response?.status).toBe('fail');
    expect(response?.message).toBe(
      'manifest verification failed; verifiedCount 0; requiredCount 1; message .attestors[0].entries[0].keys: ' +
        'failed to verify signature. diff found; {"items":[{"key":"spec.ports.0.port","values":{"after":8443,"before":80}}]}',
    );
  });

  it('ignores fields the cluster sets (status, uid, managedFields, clusterIP, namespace)', () => {
    const signed = signResource({ ...service, metadata: { name: 'web' } }, [alice]);
    const live = {
      ...signed,
      metadata: {
        ...signed.metadata,
        namespace: 'shop',
        uid: 'abc',
        resourceVersion: '12',
        managedFields: [{ manager: 'kubectl' }],
      },
      spec: { ...(signed.spec as JsonObject), clusterIP: '10.0.0.1', type: 'ClusterIP', sessionAffinity: 'None' },
      status: { loadBalancer: {} },
    } as KubeObject;
    expect(validateManifests(run(oneOf(alice), live))?.status).toBe('pass');
  });

  it("applies the rule's ignoreFields to the objects they select", () => {
    const signed = signResource(service, [alice]);
    const live = { ...signed, metadata: { ...signed.metadata, labels: { stage: 'prod' } } } as KubeObject;
    const ignore = (objects: JsonObject[]): JsonObject => ({
      ...oneOf(alice),
      ignoreFields: [{ fields: ['metadata.labels.stage'], objects }],
    });
    expect(validateManifests(run(oneOf(alice), live))?.message).toContain(
      'diff found; {"items":[{"key":"metadata.labels.stage","values":{"after":"prod","before":null}}]}',
    );
    expect(validateManifests(run(ignore([{ kind: 'Service', name: 'we*' }]), live))?.status).toBe('pass');
    expect(validateManifests(run(ignore([]), live))?.status).toBe('pass');
    expect(validateManifests(run(ignore([{ kind: 'Deployment' }]), live))?.status).toBe('fail');
    expect(validateManifests(run(ignore([{ kind: 'Service', namespace: 'other' }]), live))?.status).toBe('fail');
  });

  it('matches ignored fields with wildcards and as prefixes', () => {
    const signed = signResource(service, [alice]);
    const live = {
      ...signed,
      spec: { ...(signed.spec as JsonObject), ports: [{ port: 80, protocol: 'TCP', targetPort: 9090, name: 'http' }] },
    };
    const manifests = {
      ...oneOf(alice),
      ignoreFields: [{ fields: ['spec.ports.*.targetPort', 'spec.ports.*.name'], objects: [] }],
    };
    expect(validateManifests(run(manifests, live))?.status).toBe('pass');
    const prefix = { ...oneOf(alice), ignoreFields: [{ fields: ['spec.ports'] }] };
    expect(validateManifests(run(prefix, live))?.status).toBe('pass');
  });

  it('finds the manifest of the resource among several signed together', () => {
    const other = { ...service, metadata: { name: 'db', namespace: 'shop' }, spec: { ports: [{ port: 5432 }] } };
    const config = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web' }, data: { a: 'b' } };
    const signed = signResource(service, [alice], { manifests: [config, other, service] });
    expect(validateManifests(run(oneOf(alice), signed))?.status).toBe('pass');
  });

  it('compares with the closest manifest of the same kind when none has the same name', () => {
    const renamed = { ...service, metadata: { name: 'web-v2', namespace: 'shop' } };
    const signed = signResource(renamed, [alice], { manifests: [service] });
    expect(validateManifests(run(oneOf(alice), signed))?.message).toContain(
      'diff found; {"items":[{"key":"metadata.name","values":{"after":"web-v2","before":"web"}}]}',
    );
  });

  it('fails when the message holds nothing of the resource kind', () => {
    const config = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web' } };
    const signed = signResource(service, [alice], { manifests: [config] });
    expect(validateManifests(run(oneOf(alice), signed))?.message).toBe(
      'manifest verification failed; verifiedCount 0; requiredCount 1; message .attestors[0].entries[0].keys: ' +
        'YAML manifest not found for this resource: failed to find a YAML manifest in the gzipped message',
    );
  });

  it('reads the annotations of a custom annotationDomain and ignores them in the comparison', () => {
    const signed = signResource(service, [alice], { domain: 'example.com' });
    expect(validateManifests(run({ ...oneOf(alice), annotationDomain: 'example.com' }, signed))?.status).toBe('pass');
    expect(validateManifests(run(oneOf(alice), signed))?.message).toContain('message not found');
  });
});

describe('validateManifests: what works offline', () => {
  const signed = signResource(service, [alice]);

  it('answers error for keyless and certificate attestors once a manifest is found', () => {
    const keyless = validateManifests(run({ attestors: [{ entries: [{ keyless: { subject: 'me' } }] }] }, signed));
    expect(keyless?.status).toBe('error');
    expect(keyless?.message).toContain(
      '.attestors[0].entries[0].keyless: failed to verify signature: signature verification failed: keyless',
    );
    expect(keyless?.message).toContain('not supported');
    const certificates = validateManifests(
      run({ attestors: [{ entries: [{ certificates: { cert: 'x' } }] }] }, signed),
    );
    expect(certificates?.message).toContain('.attestors[0].entries[0].certificates: failed to verify signature');
    // An unsigned resource still just fails.
    expect(validateManifests(run({ attestors: [{ entries: [{ keyless: {} }] }] }, service))?.status).toBe('fail');
  });

  it('answers error for key references and OCI repositories', () => {
    expect(validateManifests(run({ attestors: [{ entries: [entry('k8s://ns/secret')] }] }, signed))?.message).toContain(
      'is not an inline PEM public key',
    );
    const repository = validateManifests(run({ ...oneOf(alice), repository: 'ghcr.io/acme/manifests:v1' }, signed));
    expect(repository?.status).toBe('error');
    expect(repository?.message).toContain(
      'YAML manifest not found for this resource: fetching manifest image: manifests in OCI images',
    );
  });

  it('passes dry-run requests and produces nothing on DELETE', () => {
    expect(validateManifests(run(oneOf(alice), service, { dryRun: true }))).toMatchObject({
      status: 'pass',
      message: 'allowed because of DryRun request',
    });
    expect(validateManifests(run(oneOf(alice), service, { operation: 'DELETE' }))).toBeUndefined();
  });

  it('names the malformed field of a bad rule', () => {
    expect(validateManifests(run({ attestors: [{ count: -1, entries: [] }] }, service))).toMatchObject({
      status: 'error',
      message: 'invalid manifests rule: validate.manifests.attestors[0].count must be a non-negative integer',
    });
    expect(validateManifests(run({ ignoreFields: [{ fields: [3] }] } as unknown as JsonObject, service))?.message).toBe(
      'invalid manifests rule: validate.manifests.ignoreFields[0].fields[0] must be a string',
    );
  });
});
