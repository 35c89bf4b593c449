// `kubectl restoretest diagnose`: the hints first (what to do), then the evidence behind them
// (Pods not Ready, pending claims, Warning events, container logs), each as a kubectl-style table;
// each log under a heading naming its pod and container, whether it is an init container and
// whether it is the previous instance, with a marker where older lines were left out (issue 30).
// Messages and log lines were written by the restored application: a table cell keeps them on one
// line, and control sequences never reach the terminal (terminal-text.ts, applied to all output).
import type { components } from '../../../openapi/client.js';
import { age, orNone } from './format.js';
import { renderTable } from './table.js';

export type RunDiagnosis = components['schemas']['RunDiagnosis'];

/** A message on one table line: its line breaks and tabs become spaces. */
function oneLine(text: string): string {
  return text.replace(/[\r\n\t\v\f\u2028\u2029]+/g, ' ');
}

function section(title: string, body: string): string {
  return `\n${title}\n${body}`;
}

type ContainerLog = RunDiagnosis['logs'][number];

/** "Container logs (last 100 lines, failing containers, init, previous):" — what was asked for. */
function logsTitle(diagnosis: RunDiagnosis): string {
  const settings = diagnosis.logCollection;
  if (!settings) return 'Last log lines:';
  const parts = [`last ${settings.lines} lines`, `${settings.containers} containers`];
  if (settings.initContainers) parts.push('init');
  if (settings.previous) parts.push('previous');
  return `Container logs (${parts.join(', ')}):`;
}

function renderLog(log: ContainerLog): string {
  const kinds = [log.init ? 'init' : '', log.previous ? 'previous instance' : ''].filter(Boolean);
  const heading = `  ${log.namespace}/${log.pod} ${log.container}${kinds.length ? ` (${kinds.join(', ')})` : ''}:`;
  const marker = log.truncated
    ? [`    [… ${log.omittedLines ? `${log.omittedLines} older lines` : 'older lines'} left out to stay within the size bound]`]
    : [];
  return [heading, ...marker, ...log.lines.map((line) => `    ${oneLine(line)}`)].join('\n');
}

export function renderDiagnosis(diagnosis: RunDiagnosis, now: Date): string {
  const lines = [
    `Test:       ${diagnosis.test.namespace}/${diagnosis.test.name}`,
    `Run:        ${diagnosis.runId} (${diagnosis.result}), report ${diagnosis.report}`,
    `Collected:  ${diagnosis.collectedAt} (${age(diagnosis.collectedAt, now)} ago)`,
    `Sandboxes:  ${orNone(diagnosis.sandboxes.join(', '))}`,
  ];
  let text = `${lines.join('\n')}\n`;
  const hints = diagnosis.hints.length
    ? diagnosis.hints
        .map((hint) =>
          [`  ${hint.code}: ${hint.title}`, `    ${hint.remediation}`, ...hint.objects.map((object) => `    - ${object}`)].join('\n'),
        )
        .join('\n')
    : '  none of the known causes matched; see the details below';
  text += section('Hints:', `${hints}\n`);
  if (diagnosis.pods.length > 0) {
    const rows = diagnosis.pods.flatMap((pod) => {
      const scheduling = pod.unscheduled
        ? [[pod.namespace, pod.name, pod.phase, '-', 'Unscheduled', oneLine(pod.unscheduled.reason), '0', oneLine(pod.unscheduled.message)]]
        : [];
      return [
        ...scheduling,
        ...pod.containers.map((container) => [
          pod.namespace,
          pod.name,
          pod.phase,
          container.name,
          container.state,
          oneLine(orNone(container.reason ?? container.lastTerminationReason ?? '')),
          String(container.restartCount),
          oneLine(container.message ?? ''),
        ]),
      ];
    });
    text += section('Pods not Ready:', renderTable(['NAMESPACE', 'POD', 'PHASE', 'CONTAINER', 'STATE', 'REASON', 'RESTARTS', 'MESSAGE'], rows));
  }
  if (diagnosis.claims.some((claim) => claim.phase !== 'Bound')) {
    const rows = diagnosis.claims
      .filter((claim) => claim.phase !== 'Bound')
      .map((claim) => [claim.namespace, claim.name, claim.phase, orNone(claim.storageClass ?? '')]);
    text += section('Claims not bound:', renderTable(['NAMESPACE', 'CLAIM', 'PHASE', 'STORAGECLASS'], rows));
  }
  if (diagnosis.events.length > 0) {
    const rows = diagnosis.events.map((event) => [
      event.lastSeen ? age(event.lastSeen, now) : '-',
      oneLine(event.reason),
      oneLine(event.object),
      String(event.count),
      oneLine(event.message),
    ]);
    text += section('Warning events:', renderTable(['LAST SEEN', 'REASON', 'OBJECT', 'COUNT', 'MESSAGE'], rows));
  }
  const logs = diagnosis.logs.length && !diagnosis.redacted
    ? diagnosis.logs.map(renderLog).join('\n')
    : `  ${diagnosis.logsNote ?? 'none'}`;
  text += section(logsTitle(diagnosis), `${logs}\n`);
  if (diagnosis.truncated) text += '\n(truncated to stay within the diagnosis size bound)\n';
  if (diagnosis.redacted) {
    text += `\n(the restored application's own text is hidden: you may not get secrets in ${diagnosis.sandboxes.length > 1 ? 'every source namespace' : 'the source namespace'} of this run)\n`;
  }
  return text;
}
