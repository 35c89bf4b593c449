// A test's schedule as the tests list and the test page show it (issue 30): the cron itself, and
// beside it what it means in English (protocol/schedule-text.ts): "daily at 02:00 Europe/Paris".
import { scheduleAside, type ScheduleFields } from '../../../protocol/schedule-text.js';

export function Schedule({ test }: { test: ScheduleFields }) {
  const cron = test.schedule.trim();
  const aside = scheduleAside(test);
  if (!cron && !aside) return <span class="muted">none</span>;
  return (
    <span class="schedule" data-testid="schedule">
      {cron ? <code>{cron}</code> : null}
      {cron && aside ? ' ' : null}
      {aside ? <span class="schedule-text">{aside}</span> : null}
    </span>
  );
}
