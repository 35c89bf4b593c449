// Kubernetes Events on a RestoreTest, one per transition (run started, restore done, run
// passed/partial/failed, SLA exceeded, score regressed, invalid spec, skipped or missed schedule).
// Recording an Event must never fail a reconcile: errors are logged and dropped.
import { randomBytes } from 'node:crypto';
import type { CoreV1Api } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { RestoreTest } from '../domain/resources/resources.js';
import { truncateUtf8 } from '../domain/common/text.js';

/** The apiserver's limit on an Event's message, in bytes. */
export const EVENT_MESSAGE_MAX_BYTES = 1024;

export type EventType = 'Normal' | 'Warning';

export interface EventRecorder {
  record(test: RestoreTest, type: EventType, reason: string, message: string): void;
}

export class KubeEventRecorder implements EventRecorder {
  constructor(
    private readonly core: CoreV1Api,
    private readonly component: string,
    private readonly log: Logger,
    private readonly now: () => Date = () => new Date(),
  ) {}

  record(test: RestoreTest, type: EventType, reason: string, message: string): void {
    const namespace = test.metadata.namespace ?? 'default';
    const time = this.now();
    void this.core
      .createNamespacedEvent({
        namespace,
        body: {
          metadata: { name: `${test.metadata.name}.${randomBytes(6).toString('hex')}`, namespace },
          involvedObject: {
            apiVersion: test.apiVersion,
            kind: test.kind,
            name: test.metadata.name,
            namespace,
            uid: test.metadata.uid,
            resourceVersion: test.metadata.resourceVersion,
          },
          type,
          reason,
          // Cut between code points: half an emoji would be an invalid string (and the limit is bytes).
          message: truncateUtf8(message, EVENT_MESSAGE_MAX_BYTES),
          source: { component: this.component },
          firstTimestamp: time,
          lastTimestamp: time,
          count: 1,
          reportingComponent: this.component,
          reportingInstance: this.component,
        },
      })
      .catch((error: unknown) => this.log.warn({ err: error, reason }, 'could not record an Event'));
  }
}
