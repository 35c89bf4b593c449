// What of a diagnosis a reader sees who may not read the restored application (issue 26). Log
// lines, event messages and container messages (a terminated container's message is whatever the
// application wrote to its termination log) are the restored application's own text, and a run may
// restore another team's namespace into the test's: a reader who may read the source namespaces
// (the same right that lets one author such a test: get secrets there) sees them as stored; anyone
// else sees the states, reasons, counts, names and hints, with the text left out.
import type { RunDiagnosis } from './diagnosis.js';

export function redactDiagnosis(diagnosis: RunDiagnosis, sourceNamespaces: readonly string[]): RunDiagnosis {
  const hiddenLines = diagnosis.logs.reduce((sum, log) => sum + log.lines.length, 0);
  const sources = sourceNamespaces.map((namespace) => `"${namespace}"`).join(', ');
  return {
    ...diagnosis,
    pods: diagnosis.pods.map((pod) => ({
      ...pod,
      containers: pod.containers.map(({ message: _message, ...container }) => container),
    })),
    events: diagnosis.events.map((event) => ({ ...event, message: '' })),
    logs: diagnosis.logs.map((log) => ({ ...log, lines: [] })),
    logsNote:
      hiddenLines > 0
        ? `${hiddenLines} log lines hidden, like the event and container messages: they are the restored application's own text, shown only to users who may get secrets in ${sources}`
        : diagnosis.logsNote,
    redacted: true,
  };
}
