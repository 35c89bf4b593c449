// Bad input exits 2 with exactly one `error: ...` line on stderr, before any request is sent;
// --help works for every command and shows examples.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { COMMANDS } from '../../../cmd/kubectl-restoretest/commands/registry.js';
import { FakeApi } from './support/fake-api.js';
import { expectGolden } from './support/golden.js';
import { runPlugin } from './support/run-plugin.js';

let fake: FakeApi;

beforeAll(async () => {
  fake = await FakeApi.start();
});

afterAll(async () => {
  await fake.close();
});

const CREATE = ['create', 'payments', '--provider', 'velero', '--source-namespace', 'payments', '--cron', '0 2 * * *'];

const BAD_INPUT: readonly (readonly [string, readonly string[], string])[] = [
  ['unknown command', ['lst'], 'error: unknown command "lst" for "kubectl restoretest"; did you mean "list"?'],
  ['unknown command far from any', ['frobnicate'], `error: unknown command "frobnicate" for "kubectl restoretest"; see 'kubectl restoretest --help'`],
  ['no command', [], `error: a command is required; see 'kubectl restoretest --help'`],
  ['unknown flag', ['list', '--bogus'], `error: unknown flag: --bogus; see 'kubectl restoretest list --help'`],
  ['missing name (get)', ['get'], 'error: NAME is required; usage: kubectl restoretest get NAME'],
  ['missing name (trigger)', ['trigger', '--wait'], 'error: NAME is required; usage: kubectl restoretest trigger NAME'],
  ['missing name (delete)', ['delete'], 'error: NAME is required; usage: kubectl restoretest delete NAME'],
  [
    'missing name (create)',
    ['create', '--provider', 'velero', '--source-namespace', 'a', '--cron', '@daily'],
    'error: a NAME is required: kubectl restoretest create NAME --provider P --source-namespace NS --cron CRON (or -f FILE with a name)',
  ],
  ['extra argument', ['get', 'a', 'b'], 'error: unexpected argument "b"; usage: kubectl restoretest get NAME'],
  ['invalid name', ['get', 'Payments_1'], 'error: invalid NAME "Payments_1": must be an RFC 1123 label (lower-case letters, digits and "-", at most 63 characters)'],
  ['bad cron (fields)', [...CREATE.slice(0, 6), '--cron', '0 2 * *'], 'error: invalid --cron "0 2 * *": expected 5 fields (minute hour day-of-month month day-of-week) or a macro such as @daily, got 4 fields'],
  ['bad cron (range)', [...CREATE.slice(0, 6), '--cron', '61 2 * * *'], 'error: invalid --cron "61 2 * * *": Constraint error, got value 61 expected range 0-59'],
  ['bad cron (macro)', [...CREATE.slice(0, 6), '--cron', '@fortnightly'], 'error: invalid --cron "@fortnightly": unknown macro; use one of @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly'],
  ['bad duration (--ttl)', [...CREATE, '--ttl', '90 minutes'], 'error: invalid --ttl "90 minutes": expected a duration such as 90s, 15m or 1h30m'],
  ['bad duration (--max-rto)', [...CREATE, '--max-rto', '15'], 'error: invalid --max-rto "15": expected a duration such as 90s, 15m or 1h30m'],
  ['bad duration (--max-rpo)', [...CREATE, '--max-rpo', '1d'], 'error: invalid --max-rpo "1d": expected a duration such as 90s, 15m or 1h30m'],
  ['zero duration (--max-rpo)', [...CREATE, '--max-rpo', '0s'], 'error: invalid --max-rpo "0s": expected a duration such as 90s, 15m or 1h30m'],
  ['bad duration (--timeout)', ['trigger', 'payments', '--wait', '--timeout', '10 min'], 'error: invalid --timeout "10 min": expected a duration such as 90s, 10m or 1h'],
  ['bad duration (--request-timeout)', ['list', '--request-timeout', 'soon'], 'error: invalid --request-timeout "soon": expected a duration such as 30s or 1m, or 0'],
  ['bad time zone', [...CREATE, '--timezone', 'Mars/Olympus'], 'error: invalid --timezone "Mars/Olympus": expected an IANA time zone such as UTC or Europe/Berlin'],
  ['bad provider', [...CREATE, '--provider', 'restic'], 'error: invalid --provider "restic": use one of velero, kasten, trilio'],
  ['bad history limit', [...CREATE, '--history-limit', '5000'], 'error: invalid --history-limit "5000": expected a whole number from 1 to 1000'],
  ['bad network isolation', [...CREATE, '--network-isolation', 'loose'], 'error: invalid --network-isolation "loose": use one of strict, none'],
  ['--every-nth-backup 0', [...CREATE, '--on-backup', '--every-nth-backup', '0'], 'error: invalid --every-nth-backup "0": expected a whole number from 1 to 1000'],
  ['--every-nth-backup without --on-backup', [...CREATE, '--every-nth-backup', '3'], 'error: --every-nth-backup needs --on-backup'],
  ['--on-backup with a named backup', [...CREATE, '--on-backup', '--backup', 'daily-1'], 'error: --on-backup runs on each new backup: drop --backup daily-1 or use latest'],
  ['missing required flags', ['create', 'payments', '--provider', 'velero'], 'error: missing required flags --source-namespace, --cron (or --on-backup)'],
  [
    'update needs the whole test',
    ['update', 'payments', '--cron', '@daily'],
    'error: missing required flags --provider, --source-namespace (update replaces the whole test: give every field you want to keep)',
  ],
  ['bad --days', ['reports', '--days', 'many'], 'error: invalid --days "many": expected a whole number from 1 to 3650'],
  ['bad --hours', ['alerts', '--hours', '-1'], 'error: invalid --hours "-1": expected a whole number from 1 to 87600'],
  ['bad --period', ['compliance', '--framework', 'soc2', '--period', '0'], 'error: invalid --period "0": expected a whole number from 1 to 3650'],
  ['unknown framework', ['compliance', '--framework', 'gdpr'], 'error: invalid --framework "gdpr": use one of soc2, iso27001, hipaa, dora, pcidss'],
  ['missing framework', ['compliance'], 'error: required flag --framework not set; usage: kubectl restoretest compliance'],
  ['bad output format', ['list', '-o', 'xml'], 'error: invalid --output "xml": use one of table, wide, json, yaml, name'],
  ['unsupported output format', ['summary', '-o', 'name'], 'error: -o name is not supported by summary; use one of table, wide, json, yaml'],
  ['flag without value', ['list', '-n'], 'error: flag needs an argument: -n'],
  ['name across namespaces', ['get', 'payments', '-A'], 'error: a RestoreTest cannot be named across all namespaces (-A); use -n NAMESPACE'],
  ['bad namespace', ['list', '-n', 'Team_A'], 'error: invalid --namespace "Team_A": must be an RFC 1123 label (lower-case letters, digits and "-", at most 63 characters)'],
  ['bad --server', ['list', '--server', 'localhost:8080'], 'error: invalid --server "localhost:8080": expected a URL such as http://localhost:8080'],
];

describe('bad input', () => {
  it.each(BAD_INPUT)('%s → exit 2, one line', async (_, args, expected) => {
    fake.requests.length = 0;
    const result = await runPlugin([...args, ...(args.includes('--server') ? [] : ['--server', fake.url])]);
    expect(result.stderr).toBe(`${expected}\n`);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(fake.requests).toEqual([]);
  });
});

describe('--help', () => {
  it('lists every command, the flags and the exit codes', async () => {
    const result = await runPlugin(['--help']);
    expect(result.code).toBe(0);
    expectGolden('help', result.stdout);
  });

  it.each(COMMANDS.map((command) => [command.name]))('%s --help shows examples', async (name) => {
    const result = await runPlugin([name, '--help']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain(`kubectl restoretest ${name}`);
    expect(result.stdout).toMatch(/Examples:\n {2}kubectl restoretest /);
    expect(result.stdout).toContain('Output formats (-o):');
  });

  it('trigger --help (golden)', async () => {
    expectGolden('help-trigger', (await runPlugin(['trigger', '--help'])).stdout);
  });

  it('create --help documents a flag for every CreateTestInput field (golden)', async () => {
    const help = (await runPlugin(['create', '--help'])).stdout;
    for (const flag of ['--provider', '--backup', '--source-namespace', '--cron', '--timezone', '--namespace-prefix', '--ttl',
      '--network-isolation', '--health-check-policy', '--max-rto', '--max-rpo', '--alert-on-exceed', '--history-limit', '--filename']) {
      expect(help).toContain(flag);
    }
    expectGolden('help-create', help);
  });
});

describe('shell completion', () => {
  it('prints a bash/zsh script for kubectl-restoretest', async () => {
    const result = await runPlugin(['completion']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('kubectl-restoretest --get-yargs-completions');
    expect(result.stdout).toContain('complete -o bashdefault -o default -F _kubectl-restoretest_yargs_completions kubectl-restoretest');
  });

  it('completes commands and flags', async () => {
    const commands = await runPlugin(['--get-yargs-completions', 'kubectl-restoretest', 'tr'], { env: { SHELL: '/bin/bash' } });
    expect(commands.stdout.split('\n')).toContain('trigger');
    const flags = await runPlugin(['--get-yargs-completions', 'kubectl-restoretest', 'trigger', 'x', '--'], { env: { SHELL: '/bin/bash' } });
    expect(flags.stdout.split('\n')).toContain('--wait');
  });
});
