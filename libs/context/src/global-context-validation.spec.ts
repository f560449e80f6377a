import { describe, expect, it } from 'vitest';
import { globalContextEntryErrors, globalContextEntryRefusal } from './global-context-validation';

const entry = (spec: Record<string, unknown>, name = 'deployments') => ({ metadata: { name }, spec });

describe('globalContextEntryErrors (Kyverno GlobalContextEntry.Validate)', () => {
  it('admits a kubernetesResource entry, the core group with v1 included', () => {
    expect(
      globalContextEntryErrors(
        entry({ kubernetesResource: { group: 'apps', version: 'v1', resource: 'deployments' } }),
      ),
    ).toEqual([]);
    expect(globalContextEntryErrors(entry({ kubernetesResource: { version: 'v1', resource: 'pods' } }))).toEqual([]);
  });

  it('wants exactly one of kubernetesResource and apiCall', () => {
    const message =
      'spec.kubernetesResource: Forbidden: A global context entry should either have KubernetesResource or APICall';
    expect(globalContextEntryRefusal(entry({}))).toBe(message);
    expect(
      globalContextEntryErrors(
        entry({
          kubernetesResource: { group: 'apps', version: 'v1', resource: 'deployments' },
          apiCall: { urlPath: '/x' },
        }),
      ),
    ).toEqual([message]);
  });

  it('names the missing resource fields under spec.resource, group only outside the core v1', () => {
    expect(globalContextEntryErrors(entry({ kubernetesResource: { version: 'v2' } }))).toEqual([
      'spec.resource.group: Required value: A Resource entry requires a group',
      'spec.resource.resource: Required value: A Resource entry requires a resource',
    ]);
    expect(globalContextEntryRefusal(entry({ kubernetesResource: { group: 'apps', resource: 'x' } }))).toBe(
      'spec.resource.version: Required value: A Resource entry requires a version',
    );
  });

  it('checks the apiCall: refresh interval above 0, service or urlPath, data only with POST', () => {
    expect(globalContextEntryErrors(entry({ apiCall: { urlPath: '/api/v1/pods' } }))).toEqual([]);
    expect(
      globalContextEntryRefusal(
        entry({
          apiCall: {
            refreshInterval: '0s',
            service: { url: 'https://a' },
            urlPath: '/x',
            data: [{ key: 'a', value: 1 }],
          },
        }),
      ),
    ).toBe(
      '[spec.apiCall.refreshIntervalSeconds: Required value: A Resource entry requires a refresh interval greater than 0 seconds, ' +
        'spec.apiCall.service: Forbidden: An External API call should either have Service or URLPath, ' +
        'spec.apiCall.method: Forbidden: An External API call with data should have method as POST]',
    );
    expect(globalContextEntryErrors(entry({ apiCall: { urlPath: '/x', method: 'POST', data: [] } }))).toEqual([]);
  });

  it('checks each projection: a name, not the entry name, a JMESPath that compiles', () => {
    const errors = globalContextEntryErrors(
      entry({
        kubernetesResource: { group: 'apps', version: 'v1', resource: 'deployments' },
        projections: [
          { name: 'deployments', jmesPath: '[].metadata.name' },
          { name: '', jmesPath: '' },
          { name: 'bad', jmesPath: '[?' },
        ],
      }),
    );
    expect(errors[0]).toBe(
      'spec.projections[0].name: Required value: A projection entry requires a name different from the global context entry name',
    );
    expect(errors).toContain('spec.projections[1].name: Required value: A projection entry requires a name');
    expect(errors).toContain('spec.projections[1].jmesPath: Required value: A projection entry requires a JMESPath');
    expect(errors.some((e) => e.startsWith('spec.projections[1].jmesPath: Invalid value: "": '))).toBe(true);
    expect(errors.some((e) => e.startsWith('spec.projections[2].jmesPath: Invalid value: "[?": '))).toBe(true);
  });
});
