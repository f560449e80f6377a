import { describe, expect, it } from 'vitest';
import { validateName } from './names';

describe('validateName', () => {
  it('holds built-in types to DNS subdomains', () => {
    expect(validateName('/configmaps', true, 'app.config')).toBeUndefined();
    expect(validateName('/configmaps', true, 'app:config')?.message).toContain('a lowercase RFC 1123 subdomain');
  });

  it('lets RBAC names be any path segment, as kube does (kyverno:rbac)', () => {
    for (const resource of ['roles', 'clusterroles', 'rolebindings', 'clusterrolebindings']) {
      expect(validateName(`rbac.authorization.k8s.io/${resource}`, true, 'kyverno:rbac')).toBeUndefined();
      expect(validateName(`rbac.authorization.k8s.io/${resource}`, true, 'a/b')?.message).toContain(
        "may not contain '/'",
      );
    }
  });

  it('holds namespaces and services to DNS labels', () => {
    expect(validateName('/namespaces', true, 'a.b')?.message).toContain('RFC 1123 label');
    expect(validateName('/services', true, 'web')).toBeUndefined();
  });
});
