// kubectl restoretest sandboxes --remove-orphans (issue 26): lists the orphans, removes each by
// the UID it just listed, goes on past a refusal (exit 1, the refusal on stderr), and names the
// administrators' role when the caller lacks `administer`. The tables are golden files in
// output.test.ts.
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { FakeApi, problem } from './support/fake-api.js';
import { expectGolden } from './support/golden.js';
import { runPlugin } from './support/run-plugin.js';

let fake: FakeApi;

beforeAll(async () => {
  fake = await FakeApi.start();
});

afterAll(async () => {
  await fake.close();
});

afterEach(() => {
  expect(fake.problems).toEqual([]);
  fake.requests.length = 0;
  fake.recreated.clear();
});

const connection = (): string[] => ['--server', fake.url, '--token', 'unit-test-token'];

describe('sandboxes --remove-orphans', () => {
  it('removes every orphan listed, each with its UID', async () => {
    const args = ['sandboxes', '--remove-orphans'];
    const result = await runPlugin([...args, ...connection()]);
    expect([result.code, result.stderr]).toEqual([0, '']);
    expectGolden('sandboxes-remove-orphans', `$ kubectl restoretest ${args.join(' ')}\n${result.stdout}`);
    expect(fake.calls).toEqual([
      'GET /api/v1/sandboxes?orphaned=true',
      'DELETE /api/v1/sandboxes/rehearsal-orders-q1w2e?uid=5d1f7a2c-3b4e-4f60-8a9b-0c1d2e3f4a5b',
      'DELETE /api/v1/sandboxes/rehearsal-shop-a1b2c?uid=9e8d7c6b-5a49-4382-8170-6f5e4d3c2b1a',
    ]);
  });

  it('prints namespace/NAME with -o name, and the removed sandboxes with -o json', async () => {
    expect((await runPlugin(['sandboxes', '--remove-orphans', '-o', 'name', ...connection()])).stdout).toBe(
      'namespace/rehearsal-orders-q1w2e\nnamespace/rehearsal-shop-a1b2c\n',
    );
    const json = await runPlugin(['sandboxes', '--remove-orphans', '-o', 'json', ...connection()]);
    expect((JSON.parse(json.stdout) as { name: string }[]).map((sandbox) => sandbox.name)).toEqual([
      'rehearsal-orders-q1w2e',
      'rehearsal-shop-a1b2c',
    ]);
  });

  it('goes on past a sandbox created again since the list, and exits 1 naming it', async () => {
    fake.recreated.add('rehearsal-orders-q1w2e');
    const result = await runPlugin(['sandboxes', '--remove-orphans', ...connection()]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'error: namespace "rehearsal-orders-q1w2e" has uid 77777777-0000-4000-8000-000000000000, not 5d1f7a2c-3b4e-4f60-8a9b-0c1d2e3f4a5b: nothing was removed\n',
    );
    expect(result.stdout).toBe(
      'namespace/rehearsal-shop-a1b2c removed (its test team-a/shop was deleted; kept until its expiry at 2026-03-15T12:30:00.000Z)\n',
    );
  });

  it('says so when there is nothing to remove', async () => {
    const empty = await FakeApi.start();
    empty.on('GET', '/api/v1/sandboxes', { status: 200, body: [] });
    try {
      expect(await runPlugin(['sandboxes', '--remove-orphans', '--server', empty.url, '--token', 't'])).toEqual({
        code: 0,
        stdout: '',
        stderr: 'No orphaned sandboxes found\n',
      });
      expect(empty.calls).toEqual(['GET /api/v1/sandboxes?orphaned=true']);
    } finally {
      await empty.close();
    }
  });

  it('names the permission and the administrators\' role on a 403', async () => {
    const refusing = await FakeApi.start();
    refusing.on(
      'GET',
      '/api/v1/sandboxes',
      problem(403, 'forbidden', 'Permission denied', 'User "jane" cannot administer restoretests.rehearsal.dev.', {
        missingPermissions: [{ verb: 'administer', group: 'rehearsal.dev', resource: 'restoretests' }],
      }),
    );
    try {
      const result = await runPlugin(['sandboxes', '--server', refusing.url, '--token', 't']);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        'error: forbidden: User "jane" cannot administer restoretests.rehearsal.dev.\n' +
          'hint: you need "administer" on restoretests.rehearsal.dev cluster-wide\n' +
          'hint: the ClusterRole rehearsal-admin grants "administer" and the sandboxes entrance: bind it with a RoleBinding for one namespace, a ClusterRoleBinding for all namespaces and for sandboxes\n',
      );
      expect(refusing.problems).toEqual([]);
    } finally {
      await refusing.close();
    }
  });
});
