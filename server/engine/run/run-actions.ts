// Everything the run reconciler does to the world, behind one interface: what it observes for a
// run (each read is asked for only in the stage that needs it) and what it does about it. The
// production implementation is kube-run-actions.ts; unit tests use a plain in-memory one.
import type { Admission } from './run-slots.js';
import type { BackupChoice, BackupObservation, ChecksObservation, RestoreObservation } from '../../domain/run/run-policy.js';
import type { CurrentRun, RestoreReport, RestoreTest, RestoreTestStatus } from '../../domain/resources/resources.js';
import type { EventType } from '../events.js';

export interface RunActions {
  // ------------------------------------------------------------ observe
  /** Whether this replica still leads (false once the leadership term ended). */
  leading(): boolean;
  /** Queued: may the run start now? An admitted run must settle its promotion. */
  admit(test: RestoreTest): Admission;
  /** Preparing: the backup to restore (read only). */
  selectBackup(test: RestoreTest): Promise<BackupObservation>;
  /** Restoring: the restore's progress (read only). */
  restoreProgress(test: RestoreTest, run: CurrentRun): Promise<RestoreObservation>;
  /** Validating: pods expected and ready in the run's sandboxes. */
  countPods(run: CurrentRun): Promise<{ expected: number; ready: number }>;
  /** Validating: the background health-check task of this run. */
  checks(test: RestoreTest, run: CurrentRun): ChecksObservation;
  /** Validating/Finalizing: the run's report, if it exists. */
  findReport(test: RestoreTest, run: CurrentRun): Promise<RestoreReport | undefined>;

  // ------------------------------------------------------------ act
  /** Creates the sandboxes and requests the restore (idempotent); returns the Restoring run. */
  prepare(test: RestoreTest, run: CurrentRun, backup: BackupChoice): Promise<CurrentRun>;
  startChecks(test: RestoreTest, run: CurrentRun): void;
  /** Gathers the run's facts and hands them to the report writer; returns the stored report. */
  writeReport(test: RestoreTest, run: CurrentRun): Promise<RestoreReport>;
  /** After the report: removes the restore object, deletes (pass) or keeps (until ttl) the sandboxes. */
  cleanUp(test: RestoreTest, run: CurrentRun, report: RestoreReport): Promise<void>;
  /** Replaces the test's status (optimistic concurrency); the stored test, or undefined if it is gone. */
  writeStatus(test: RestoreTest, status: RestoreTestStatus): Promise<RestoreTest | undefined>;
  record(test: RestoreTest, type: EventType, reason: string, message: string): void;
  /** Reconcile another test soon (the next run in line). */
  enqueue(key: string): void;
  /** Drops in-memory work of a test (its check task). */
  forget(key: string): void;
}
