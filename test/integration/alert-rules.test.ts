// The alert rules of deploy/components/monitoring/prometheusrule.yaml (also the chart's), checked and
// unit-tested by promtool (built from the Prometheus Go module, cached): synthetic series from two
// replicas, including "the server restarted and has run nothing since" and a healthy failover.
// Lane: node (creates no pods: test/run-all.sh runs it beside the real node's suites)
import { beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { repoRoot } from '../helpers/cluster-info.js';

const work = path.join(repoRoot, 'test/.tmp/promtool');
let promtool = '';

interface Rule {
  alert?: string;
  annotations?: Record<string, string>;
}

function rulesOf(file: string): { groups: { name: string; rules: Rule[] }[] } {
  return (
    parse(readFileSync(path.join(repoRoot, file), 'utf8')) as {
      spec: { groups: { name: string; rules: Rule[] }[] };
    }
  ).spec;
}

function run(args: string[]): string {
  try {
    return execFileSync(promtool, args, { cwd: work, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const failure = error as { stdout?: string; stderr?: string };
    throw new Error(`promtool ${args.join(' ')} failed:\n${failure.stdout ?? ''}${failure.stderr ?? ''}`);
  }
}

beforeAll(() => {
  promtool = execFileSync('bash', [path.join(repoRoot, 'deploy/tools/build-go-tools.sh'), 'promtool'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
  mkdirSync(work, { recursive: true });
  writeFileSync(
    path.join(work, 'rules.yaml'),
    stringify(rulesOf('deploy/components/monitoring/prometheusrule.yaml')),
  );
  copyFileSync(
    path.join(repoRoot, 'test/fixtures/alerts/rehearsal-rules.test.yaml'),
    path.join(work, 'rules.test.yaml'),
  );
}, 900_000);

describe('restore-test alert rules', () => {
  it('are valid Prometheus rules (promtool check rules)', () => {
    expect(run(['check', 'rules', 'rules.yaml'])).toMatch(/SUCCESS: 12 rules found/);
  });

  it('every alert has a runbook URL to a page in docs/runbooks/', () => {
    const alerts = rulesOf('deploy/components/monitoring/prometheusrule.yaml').groups.flatMap(
      (group) => group.rules,
    );
    expect(alerts.map((rule) => rule.alert).sort()).toEqual([
      'RehearsalAdmissionPolicyMissing',
      'RehearsalEngineDown',
      'RehearsalEvidenceAnchorBucketNotLocked',
      'RehearsalEvidenceAnchorsStale',
      'RestoreBackupTooOld',
      'RestoreEvidenceDisagreesWithAnchor',
      'RestorePreflightFailed',
      'RestoreTestFailing',
      'RestoreTestNotRun',
      'RestoreTestRPOOverSLA',
      'RestoreTestRTOOverSLA',
      'RestoreTestScoreRegressed',
    ]);
    for (const rule of alerts) {
      const url = rule.annotations?.runbook_url ?? '';
      const page = /\/blob\/main\/(docs\/runbooks\/[A-Za-z]+\.md)$/.exec(url)?.[1];
      expect({ alert: rule.alert, page }).toEqual({
        alert: rule.alert,
        page: `docs/runbooks/${rule.alert}.md`,
      });
      expect(readFileSync(path.join(repoRoot, page!), 'utf8')).toContain(`# ${rule.alert}`);
    }
  });

  it('fire as the synthetic series require (promtool test rules), restarts and failovers included', () => {
    const output = run(['test', 'rules', 'rules.test.yaml']);
    expect(output).toContain('SUCCESS');
  });
});
