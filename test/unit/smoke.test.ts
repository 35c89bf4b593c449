import { describe, expect, it } from '@jest/globals';
import { API_VERSION } from '../../server/domain/resources/resources.js';

describe('toolchain', () => {
  it('runs under the Node LTS the project pins', () => {
    expect(Number(process.versions.node.split('.')[0])).toBe(24);
    expect(API_VERSION).toBe('rehearsal.dev/v1alpha1');
  });
});
