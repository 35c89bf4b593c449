import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../../server/config.js';

const on = {
  REHEARSAL_ARCHIVE_S3_ENDPOINT: 'http://127.0.0.1:9000',
  REHEARSAL_ARCHIVE_S3_BUCKET: 'evidence',
  AWS_ACCESS_KEY_ID: 'id',
  AWS_SECRET_ACCESS_KEY: 'secret',
};

describe('evidence archive configuration', () => {
  it('is off unless an endpoint and a bucket are set', () => {
    expect(loadConfig({}).archive).toBeUndefined();
  });

  it('has the documented defaults when on', () => {
    expect(loadConfig(on).archive).toEqual({
      endpoint: 'http://127.0.0.1:9000',
      bucket: 'evidence',
      region: 'us-east-1',
      prefix: 'rehearsal/evidence/',
      accessKeyId: 'id',
      secretAccessKey: 'secret',
      afterSeconds: 168 * 3600,
      keepLive: 14,
      minSegment: 30,
      maxSegment: 1000,
      retentionSeconds: 9600 * 3600,
      intervalSeconds: 600,
    });
  });

  it('names every missing or bad key in one message', () => {
    expect(() => loadConfig({ REHEARSAL_ARCHIVE_S3_BUCKET: 'evidence' })).toThrow(
      /REHEARSAL_ARCHIVE_S3_ENDPOINT: required[\s\S]*AWS_ACCESS_KEY_ID: required[\s\S]*AWS_SECRET_ACCESS_KEY: required/,
    );
    expect(() => loadConfig({ ...on, REHEARSAL_ARCHIVE_AFTER: '7d', REHEARSAL_ARCHIVE_S3_ENDPOINT: 'not a url' })).toThrow(
      /REHEARSAL_ARCHIVE_S3_ENDPOINT[\s\S]*REHEARSAL_ARCHIVE_AFTER: must be a duration such as 168h/,
    );
  });
});
