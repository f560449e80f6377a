import { describe, expect, it } from 'vitest';
import { loadLauncherConfig } from './launcher-config';

describe('loadLauncherConfig', () => {
  it('has the documented defaults', () => {
    expect({ ...loadLauncherConfig({}) }).toEqual({
      mode: 'local',
      apiPort: 6443,
      kubeconfigPath: '.edict/kubeconfig',
      examplesDir: 'examples',
      loggingFormat: 'text',
      verbosity: 2,
    });
  });

  it('reads the environment', () => {
    const config = loadLauncherConfig({
      EDICT_MODE: 'cluster',
      EDICT_API_PORT: '7443',
      EDICT_KUBECONFIG: '/tmp/k',
      EDICT_EXAMPLES: 'mine',
    });
    expect({ ...config }).toEqual({
      mode: 'cluster',
      apiPort: 7443,
      kubeconfigPath: '/tmp/k',
      examplesDir: 'mine',
      loggingFormat: 'text',
      verbosity: 2,
    });
    expect(loadLauncherConfig({ EDICT_LOGGING_FORMAT: 'json', EDICT_VERBOSITY: '4' })).toMatchObject({
      loggingFormat: 'json',
      verbosity: 4,
    });
    expect(() => loadLauncherConfig({ EDICT_LOGGING_FORMAT: 'xml' })).toThrow('EDICT_LOGGING_FORMAT');
  });

  it('names the variable of a bad value', () => {
    expect(() => loadLauncherConfig({ EDICT_API_PORT: 'high' })).toThrow(
      'invalid launcher configuration: EDICT_API_PORT: must be a whole number, got "high"',
    );
    expect(() => loadLauncherConfig({ EDICT_API_PORT: '70000' })).toThrow(
      'invalid launcher configuration: EDICT_API_PORT: apiPort must not be greater than 65535',
    );
    expect(() => loadLauncherConfig({ EDICT_MODE: 'kubeconfig' })).toThrow(
      'invalid launcher configuration: EDICT_MODE: mode must be local or cluster',
    );
  });
});
