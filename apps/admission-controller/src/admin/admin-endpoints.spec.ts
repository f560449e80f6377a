import { describe, expect, it } from 'vitest';
import { ControllerConfigError } from '@edict/controller-runtime';
import { loadControllerConfig } from '../config/controller-config';
import { ADMIN_CONTROLLERS, ADMIN_PROVIDERS } from './admin-endpoints';
import { AdminModule, adminEndpoints } from './admin.module';

describe('the adminEndpoints switch', () => {
  it('is off by default and read from EDICT_ADMIN_ENDPOINTS', () => {
    expect(loadControllerConfig({}).adminEndpoints).toBe(false);
    expect(loadControllerConfig({ EDICT_ADMIN_ENDPOINTS: 'false' }).adminEndpoints).toBe(false);
    expect(loadControllerConfig({ EDICT_ADMIN_ENDPOINTS: 'TRUE' }).adminEndpoints).toBe(true);
    expect(loadControllerConfig({}, { adminEndpoints: false }).adminEndpoints).toBe(false);
  });

  it('names the variable when it is not a boolean', () => {
    expect(() => loadControllerConfig({ EDICT_ADMIN_ENDPOINTS: 'off' })).toThrow(ControllerConfigError);
    expect(() => loadControllerConfig({ EDICT_ADMIN_ENDPOINTS: 'off' })).toThrow(
      'EDICT_ADMIN_ENDPOINTS: must be true or false, got "off"',
    );
  });

  it('registers every admin controller, or none', () => {
    expect(adminEndpoints(true)).toEqual([AdminModule]);
    expect(Reflect.getMetadata('controllers', AdminModule)).toEqual(ADMIN_CONTROLLERS);
    expect(Reflect.getMetadata('providers', AdminModule)).toEqual(ADMIN_PROVIDERS);
    expect(ADMIN_CONTROLLERS).toHaveLength(6);
    expect(adminEndpoints(false)).toEqual([]);
  });
});
