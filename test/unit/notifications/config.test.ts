// REHEARSAL_NOTIFICATIONS and the coverage keys are validated at start-up with the other settings.
import { describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig } from '../../../server/config.js';

describe('notification and coverage settings', () => {
  it('parses the global default notifications', () => {
    const config = loadConfig({
      REHEARSAL_NOTIFICATIONS: JSON.stringify({
        onPartial: true,
        channels: [{ name: 'ops', type: 'slack', urlSecretRef: { name: 'n', key: 'slack' } }],
      }),
      REHEARSAL_COVERAGE_MIN_WINDOW: '36h',
    });
    expect(config.notifications).toEqual({
      onPartial: true,
      channels: [{ name: 'ops', type: 'slack', urlSecretRef: { name: 'n', key: 'slack' } }],
    });
    expect(config.coverageMinimumWindowSeconds).toBe(36 * 3600);
    expect(loadConfig({}).notifications).toBeUndefined();
    expect(loadConfig({}).coverageMinimumWindowSeconds).toBe(86_400);
  });

  it.each([
    ['{', 'REHEARSAL_NOTIFICATIONS: not valid JSON'],
    ['{"channels":[{"name":"x","type":"webhook","urlSecretRef":{"name":"a","key":"b"}}]}', 'a webhook channel needs signingKeySecretRef'],
    ['{"channels":[{"name":"x","type":"email","urlSecretRef":{"name":"a","key":"b"}}]}', 'channels.0.type'],
    ['{"channels":[],"url":"https://hooks.example"}', 'url'],
  ])('refuses %s', (value, message) => {
    expect(() => loadConfig({ REHEARSAL_NOTIFICATIONS: value })).toThrow(ConfigError);
    expect(() => loadConfig({ REHEARSAL_NOTIFICATIONS: value })).toThrow(message);
  });

  it('refuses a coverage window that is not a duration', () => {
    expect(() => loadConfig({ REHEARSAL_COVERAGE_MIN_WINDOW: '1d' })).toThrow('REHEARSAL_COVERAGE_MIN_WINDOW');
  });
});
