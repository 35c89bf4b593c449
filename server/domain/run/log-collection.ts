// The log collection a run's diagnosis uses (spec.logCollection, issue 30), every default applied.
// Resolved when the diagnosis is collected, so a test written before the field existed gets the
// defaults too; the API shows the same resolved settings (TestResponse.logCollection).
import { LOG_COLLECTION_DEFAULTS, type LogContainers } from '../../../protocol/test-input.js';
import type { LogCollectionSpec } from '../resources/restore-test.resource.js';

export interface LogCollectionSettings {
  /** Last lines per container log. */
  lines: number;
  containers: LogContainers;
  initContainers: boolean;
  previous: boolean;
  events: boolean;
}

export function resolveLogCollection(spec: LogCollectionSpec | undefined): LogCollectionSettings {
  return {
    lines: spec?.lines ?? LOG_COLLECTION_DEFAULTS.lines,
    containers: spec?.containers ?? LOG_COLLECTION_DEFAULTS.containers,
    initContainers: spec?.initContainers ?? LOG_COLLECTION_DEFAULTS.initContainers,
    previous: spec?.previous ?? LOG_COLLECTION_DEFAULTS.previous,
    events: spec?.events ?? LOG_COLLECTION_DEFAULTS.events,
  };
}
