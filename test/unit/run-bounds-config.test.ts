// The bounds inside a run that an installation may set (decision 0012): how long Validating waits
// for pods, and how long a restored claim may fail to bind before the run fails VolumeNotBound.
import { describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig } from '../../server/config.js';

describe('run bounds settings', () => {
  it.each([
    [{}, { podReadyTimeoutSeconds: 600, claimBindTimeoutSeconds: 120 }],
    [{ REHEARSAL_POD_READY_TIMEOUT_SECONDS: '1800' }, { podReadyTimeoutSeconds: 1800, claimBindTimeoutSeconds: 120 }],
    [{ REHEARSAL_CLAIM_BIND_TIMEOUT_SECONDS: '600' }, { podReadyTimeoutSeconds: 600, claimBindTimeoutSeconds: 600 }],
  ])('reads %j as %j', (env, expected) => {
    const config = loadConfig(env);
    expect({ podReadyTimeoutSeconds: config.podReadyTimeoutSeconds, claimBindTimeoutSeconds: config.claimBindTimeoutSeconds }).toEqual(expected);
  });

  it.each([
    [{ REHEARSAL_POD_READY_TIMEOUT_SECONDS: '0' }, 'REHEARSAL_POD_READY_TIMEOUT_SECONDS'],
    [{ REHEARSAL_POD_READY_TIMEOUT_SECONDS: '10m' }, 'REHEARSAL_POD_READY_TIMEOUT_SECONDS'],
    [{ REHEARSAL_CLAIM_BIND_TIMEOUT_SECONDS: '-5' }, 'REHEARSAL_CLAIM_BIND_TIMEOUT_SECONDS'],
    [{ REHEARSAL_CLAIM_BIND_TIMEOUT_SECONDS: '2.5' }, 'REHEARSAL_CLAIM_BIND_TIMEOUT_SECONDS'],
  ])('refuses %j, naming the variable', (env, variable) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(variable);
  });
});
