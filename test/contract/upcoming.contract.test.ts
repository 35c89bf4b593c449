// GET /api/v1/upcoming with overdue runs, through the generated client and checked against
// openapi.json: a test whose nextRunAt passed while the engine was down, and a scheduled run still
// waiting for a run slot, come first and are marked `overdue: true`; the rest follow soonest first.
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { ContractValidator, loadDocument } from './support/contract.js';
import { restoreTest } from './support/fake-cluster.js';
import { NOW, startTestServer, type TestServer } from './support/server.js';

const contract = new ContractValidator(loadDocument());
let server: TestServer;
const minutesFromNow = (minutes: number): string => new Date(NOW.getTime() + minutes * 60_000).toISOString();

beforeAll(async () => {
  server = await startTestServer({ contract });
  const cluster = server.cluster;
  cluster.seedTest(
    restoreTest({
      name: 'nightly',
      status: { phase: 'Completed', lastScore: 96, nextRunAt: minutesFromNow(90) },
    }),
  );
  // The engine was down: the instant passed and nothing advanced nextRunAt.
  cluster.seedTest(
    restoreTest({
      name: 'stalled',
      namespace: 'team-a',
      status: { phase: 'Completed', lastScore: 88, nextRunAt: minutesFromNow(-180) },
    }),
  );
  // Due half a minute ago: "now", not yet overdue.
  cluster.seedTest(
    restoreTest({ name: 'starting', status: { phase: 'Idle', nextRunAt: minutesFromNow(-0.5) } }),
  );
  // Queued for a run slot for 20 minutes; nextRunAt already names tomorrow's instant.
  cluster.seedTest(
    restoreTest({
      name: 'waiting',
      status: {
        phase: 'Running',
        lastScore: 70,
        nextRunAt: minutesFromNow(24 * 60 - 20),
        currentRun: {
          id: 'q1w2e',
          trigger: 'schedule',
          scheduledAt: minutesFromNow(-20),
          queuedAt: minutesFromNow(-20),
          stage: 'Queued',
        },
      },
    }),
  );
  cluster.seedTest(
    restoreTest({
      name: 'paused',
      spec: { schedule: { cron: '0 2 * * *', timezone: 'UTC', suspend: true } },
      status: { nextRunAt: minutesFromNow(-600) },
    }),
  );
});

afterAll(async () => {
  await server?.close();
});

afterEach(() => {
  expect(contract.failures.splice(0)).toEqual([]);
});

describe('GET /api/v1/upcoming', () => {
  it('lists overdue runs first, marked, then the rest soonest first', async () => {
    const { data, response } = await server.api.GET('/api/v1/upcoming');
    expect(response.status).toBe(200);
    expect(data).toEqual([
      { name: 'stalled', namespace: 'team-a', nextRunAt: minutesFromNow(-180), lastScore: 88, overdue: true },
      {
        name: 'waiting',
        namespace: 'rehearsal-system',
        nextRunAt: minutesFromNow(-20),
        lastScore: 70,
        overdue: true,
      },
      {
        name: 'starting',
        namespace: 'rehearsal-system',
        nextRunAt: minutesFromNow(-0.5),
        lastScore: 0,
        overdue: false,
      },
      {
        name: 'nightly',
        namespace: 'rehearsal-system',
        nextRunAt: minutesFromNow(90),
        lastScore: 96,
        overdue: false,
      },
    ]);
  });

  it('documents the field as an optional boolean', () => {
    const schema = (
      loadDocument() as unknown as {
        components: { schemas: Record<string, { properties: Record<string, unknown>; required?: string[] }> };
      }
    ).components.schemas.UpcomingTest!;
    expect(schema.properties.overdue).toMatchObject({ type: 'boolean' });
    expect(schema.required).not.toContain('overdue');
  });
});
