// What a restored application answered reaches the team's Slack channel through check and failure
// messages: it is shown as text, never acted on as mrkdwn (issue 26): no channel-wide ping, no
// user mention, no link drawn over other words, no forged lines.
import { describe, expect, it } from '@jest/globals';
import { buildRunNotification, slackMessage, slackText } from '../../../server/domain/notifications/run-notification.js';
import { makeReport } from './fixtures.js';

const HOSTILE = '<!channel> <@U024BE7LH> <https://evil.example/approve|Approve the restore> & done\n*Result*\npass';

describe('slackText', () => {
  it('escapes what Slack acts on and flattens line breaks', () => {
    expect(slackText(HOSTILE)).toBe(
      '&lt;!channel&gt; &lt;@U024BE7LH&gt; &lt;https://evil.example/approve|Approve the restore&gt; &amp; done *Result* pass',
    );
  });
});

describe('slackMessage', () => {
  it('carries no unescaped < > & from a check or failure message anywhere in the body', () => {
    const report = makeReport({
      test: 'shop',
      result: 'fail',
      completedAt: new Date().toISOString(),
      failure: { reason: 'ChecksFailed', message: HOSTILE },
    });
    report.spec.checks = [{ ...report.spec.checks[0]!, name: 'orders', status: 'fail', message: HOSTILE }];
    const body = slackMessage(buildRunNotification(report, 'failed', undefined));
    const texts: string[] = [];
    JSON.stringify(body, (key, value: unknown) => {
      if (key === 'text' && typeof value === 'string') texts.push(value);
      return value;
    });
    expect(texts.length).toBeGreaterThan(3);
    for (const text of texts) {
      expect(text).not.toMatch(/<|>/);
      expect(text).not.toMatch(/&(?!amp;|lt;|gt;)/);
    }
    const why = texts.find((text) => text.startsWith('• '))!;
    expect(why).toContain('&lt;!channel&gt;');
    expect(why.split('\n')).toHaveLength(2); // the failure and the one check, no forged lines
  });
});
