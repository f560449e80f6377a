import { describe, expect, it } from 'vitest';
import { ttlLabelProblem } from '../ttl/ttl-label';
import { cleanupWebhookConfigurations } from './cleanup-webhook-configuration';
import { ttlLabelWarning } from './ttl-label-validation.controller';

const labelled = (value: string) => ({ metadata: { name: 'x', labels: { 'cleanup.kyverno.io/ttl': value } } });

describe("Kyverno's /verifyttl webhook", () => {
  it('warns, never refuses, with the Go parse error of the last format tried', () => {
    expect(ttlLabelWarning(labelled('10m'))).toBeUndefined();
    expect(ttlLabelWarning(labelled('2026-07-19'))).toBeUndefined();
    expect(ttlLabelWarning(labelled('2026-07-19T120000Z'))).toBeUndefined();
    expect(ttlLabelWarning({ metadata: { name: 'x' } })).toBeUndefined();
    expect(ttlLabelWarning(labelled('invalid'))).toBe(
      'cleanup.kyverno.io/ttl label value cannot be parsed as any recognizable format (parsing time "invalid" as "2006-01-02": cannot parse "invalid" as "2006")',
    );
  });

  it('words each Go time.Parse failure as Go does', () => {
    expect(ttlLabelProblem('2026_01_01')).toBe(
      'parsing time "2026_01_01" as "2006-01-02": cannot parse "_01_01" as "-"',
    );
    expect(ttlLabelProblem('2026-1x-01')).toBe(
      'parsing time "2026-1x-01" as "2006-01-02": cannot parse "1x-01" as "01"',
    );
    expect(ttlLabelProblem('2026-13-01')).toBe('parsing time "2026-13-01": month out of range');
    expect(ttlLabelProblem('2026-02-30')).toBe('parsing time "2026-02-30": day out of range');
    expect(ttlLabelProblem('2026-02-011')).toBe('parsing time "2026-02-011": extra text: "1"');
  });

  it('is published beside the cleanup webhook: every object with the label, failing open', () => {
    const build = cleanupWebhookConfigurations({
      installName: 'kyverno',
      namespace: 'kyverno',
      serviceName: 'kyverno-cleanup-controller',
      webhookServicePort: 443,
    } as Parameters<typeof cleanupWebhookConfigurations>[0]);
    const ttl = build('CA').validating.find((c) => c.metadata.name === 'kyverno-ttl-validating-webhook-cfg');
    expect(ttl?.webhooks).toMatchObject([
      {
        name: 'kyverno-cleanup-controller.kyverno.svc',
        clientConfig: { service: { path: '/verifyttl', name: 'kyverno-cleanup-controller' } },
        failurePolicy: 'Ignore',
        sideEffects: 'None',
        objectSelector: { matchExpressions: [{ key: 'cleanup.kyverno.io/ttl', operator: 'Exists' }] },
        rules: [{ apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], operations: ['CREATE', 'UPDATE'] }],
      },
    ]);
  });
});
