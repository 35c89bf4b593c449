// Which backup tool coverage and test drafts read (issue 32): REHEARSAL_BACKUP_TOOL, Velero unless
// said, one of the three providers, anything else refused by name at start-up.
import { describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig } from '../../server/config.js';

describe('REHEARSAL_BACKUP_TOOL', () => {
  it.each([
    [{}, 'velero'],
    [{ REHEARSAL_BACKUP_TOOL: 'kasten' }, 'kasten'],
    [{ REHEARSAL_BACKUP_TOOL: 'trilio' }, 'trilio'],
  ])('reads %j as %s', (env, expected) => {
    expect(loadConfig(env).backupTool).toBe(expected);
  });

  it.each(['Kasten', 'k10', ''])('refuses %j, naming the variable', (value) => {
    expect(() => loadConfig({ REHEARSAL_BACKUP_TOOL: value })).toThrow(ConfigError);
    expect(() => loadConfig({ REHEARSAL_BACKUP_TOOL: value })).toThrow('REHEARSAL_BACKUP_TOOL');
  });
});
