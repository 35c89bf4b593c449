// The fixed texts of the compliance evidence PDF: the status rules of
// decision 0006 (printed when the data states none) and the limitations
// every report prints.
import type { ComplianceReportData } from './report-data.js';

/** The standard rule text (decision 0006), printed when the data has none. */
export function defaultStatusRules(data: ComplianceReportData): string[] {
  const w = data.statusRules.remediationWindowDays;
  const f = data.statusRules.freshnessDays;
  return [
    'A run is one RestoreReport: one restore of a backup into an isolated sandbox namespace, followed by health checks. Every run in the period counts, failures included.',
    'Qualifying pass: result pass, measured RTO within the RestoreTest\'s target, and evidence signature that verifies. For RTO-bound controls a run without an RTO target does not qualify ("RTO target undefined").',
    `Exception: any other run in the period. It is remediated when a qualifying pass of the same RestoreTest follows within ${w} days.`,
    'A target is a source namespace in scope. Not tested: no completed run in the period.',
    `Satisfied (per target): at least one qualifying pass in the period, the newest younger than ${f} days at evaluation time, the latest run is a qualifying pass, and every exception was remediated within ${w} days.`,
    'At risk (per target): anything else, with the reasons: stale evidence, latest run failed or partial, RTO over target, late remediation, no RTO target, evidence that does not verify.',
    'Per control: not tested if no target in scope was tested; satisfied if every target in scope is satisfied; otherwise at risk (partial coverage is at risk).',
  ];
}

export const STANDARD_LIMITATIONS = [
  'A sandbox namespace in the same cluster is only logical segregation: the restores ran in the cluster that hosts the source namespaces, separated by namespace and network policy, not on segregated infrastructure.',
  'A measured RTO is the time one test restore took (restore request until the application was proven healthy). It is not a guarantee of recovery time in an incident, where data volume, load and people differ.',
  'A restore test shows that a backup of the listed namespaces could be restored and passed the configured health checks at that time. Health checks are only as deep as configured: where only the default checks ran, pods and service endpoints were verified, not the data.',
  'Cluster-scoped resources, data outside the cluster and systems other than the listed namespaces are not evidenced by this report.',
  'The population of runs is complete back to the oldest RestoreReport still retained (historyLimit). Removing the oldest reports cannot be told apart from pruning; removing or editing any other report is detected by the hash chain.',
  "Controls that are the customer's own duties (policies, business impact analysis, physical security, staff training) are never marked satisfied by this report.",
];
