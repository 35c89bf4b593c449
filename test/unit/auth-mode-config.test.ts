// REHEARSAL_AUTH_MODE=none answers every request as system:anonymous (local development). Issue 30
// routes port 8080 from Ingresses and Gateways: a server in mode none must never listen where they,
// or any pod, reach it, whatever manifests start it (the chart refuses too, with its own message).
import { describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig } from '../../server/config.js';

describe('REHEARSAL_AUTH_MODE=none only on loopback', () => {
  it.each(['127.0.0.1', '127.0.0.53', '::1', '[::1]', 'localhost', 'LOCALHOST'])('accepts REHEARSAL_HOST %s', (host) => {
    expect(loadConfig({ REHEARSAL_AUTH_MODE: 'none', REHEARSAL_HOST: host }).authMode).toBe('none');
  });

  it('accepts the default host (loopback)', () => {
    expect(loadConfig({ REHEARSAL_AUTH_MODE: 'none' }).host).toBe('127.0.0.1');
  });

  it.each(['0.0.0.0', '::', '10.0.0.5', 'rehearsal-api.rehearsal-system.svc', '128.0.0.1', '::ffff:127.0.0.1'])(
    'refuses REHEARSAL_HOST %s, naming both variables',
    (host) => {
      const load = () => loadConfig({ REHEARSAL_AUTH_MODE: 'none', REHEARSAL_HOST: host });
      expect(load).toThrow(ConfigError);
      expect(load).toThrow(/REHEARSAL_AUTH_MODE: "none" answers every request anonymously, so REHEARSAL_HOST must be loopback/);
      expect(load).toThrow(`not "${host}"`);
    },
  );

  it.each(['0.0.0.0', '::', '10.0.0.5'])('lets kubernetes mode (bearer tokens) listen on %s', (host) => {
    expect(loadConfig({ REHEARSAL_AUTH_MODE: 'kubernetes', REHEARSAL_HOST: host }).host).toBe(host);
  });
});
