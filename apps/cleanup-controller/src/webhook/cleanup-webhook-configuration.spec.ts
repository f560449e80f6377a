import { describe, expect, it } from 'vitest';
import { FixedWebhooks, type WebhookSettings } from '@edict/webhook-config';
import { cleanupWebhookConfigurations } from './cleanup-webhook-configuration';

const build = cleanupWebhookConfigurations({
  installName: 'kyverno',
  namespace: 'kyverno',
  serviceName: 'kyverno-cleanup-controller',
  webhookServicePort: 443,
} as Parameters<typeof cleanupWebhookConfigurations>[0]);

const settings = (over: Partial<WebhookSettings> = {}): WebhookSettings => ({
  webhook: { namespaceSelector: { matchLabels: { env: 'prod' } }, objectSelector: { matchLabels: { app: 'a' } } },
  matchConditions: [{ name: 'not-ci', expression: "request.userInfo.username != 'ci'" }],
  webhookAnnotations: { owner: 'platform' },
  webhookLabels: { team: 'platform', 'webhook.kyverno.io/managed-by': 'someone-else' },
  ...over,
});

describe('cleanup and TTL webhook configurations (Kyverno generic webhook controller)', () => {
  it('carry the ConfigMap’s webhookLabels (managed-by wins), webhookAnnotations and matchConditions', () => {
    const { validating } = build('CA', settings());
    expect(validating.map((c) => c.metadata.name)).toEqual([
      'kyverno-cleanup-validating-webhook-cfg',
      'kyverno-ttl-validating-webhook-cfg',
    ]);
    for (const config of validating) {
      expect(config.metadata.labels).toEqual({ team: 'platform', 'webhook.kyverno.io/managed-by': 'kyverno' });
      expect(config.metadata.annotations).toEqual({ owner: 'platform' });
      expect(config.webhooks[0]!.matchConditions).toEqual([
        { name: 'not-ci', expression: "request.userInfo.username != 'ci'" },
      ]);
      // The `webhooks` selectors are the resource webhooks' only.
      expect(config.webhooks[0]!.namespaceSelector).toEqual({});
    }
    const ttl = validating[1]!.webhooks[0]!;
    expect(ttl.objectSelector).toEqual({ matchExpressions: [{ key: 'cleanup.kyverno.io/ttl', operator: 'Exists' }] });
    expect(validating[0]!.webhooks[0]!.objectSelector).toEqual({});
  });

  it('without a ConfigMap: the managed-by label, Kyverno chart’s default annotation, no conditions', () => {
    const { validating } = build('CA');
    expect(validating[0]!.metadata.labels).toEqual({ 'webhook.kyverno.io/managed-by': 'kyverno' });
    expect(validating[0]!.metadata.annotations).toEqual({ 'admissions.enforcer/disabled': 'true' });
    expect(validating[0]!.webhooks[0]).not.toHaveProperty('matchConditions');
  });

  it('are rebuilt when the ConfigMap changes (FixedWebhooks follows the settings)', async () => {
    let current = settings();
    const listeners: Array<() => void> = [];
    const fixed = new FixedWebhooks(build, {
      current: () => current,
      onChange: (listener) => {
        listeners.push(listener);
        return () => undefined;
      },
    });
    const heard: boolean[] = [];
    fixed.onChange((now) => heard.push(now));
    expect((await fixed.build('CA')).validating[0]!.metadata.labels).toHaveProperty('team');
    current = settings({ webhookLabels: {}, webhookAnnotations: {}, matchConditions: [] });
    for (const listener of listeners) listener();
    expect(heard).toEqual([false]);
    const rebuilt = (await fixed.build('CA')).validating[0]!;
    expect(rebuilt.metadata.labels).toEqual({ 'webhook.kyverno.io/managed-by': 'kyverno' });
    expect(rebuilt.metadata.annotations).toEqual({});
    expect(rebuilt.webhooks[0]).not.toHaveProperty('matchConditions');
    expect(fixed.owned.ValidatingWebhookConfiguration).toEqual([
      'kyverno-cleanup-validating-webhook-cfg',
      'kyverno-ttl-validating-webhook-cfg',
    ]);
  });
});
