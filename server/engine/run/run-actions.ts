// Everything the run reconciler does to the world, behind one interface. Actions only act: what
// they need to know was gathered before (run-gatherer.ts) and is handed to them, and what came of
// an action that the run must remember is returned for the policy to decide on. The production
// implementation is kube-run-actions.ts; unit tests use a plain in-memory one.
import type { ReportInputs } from './report-writer.js';
import type { RunEnding } from '../../domain/run/run-policy.js';
import type { BackupChoice, PreparationObservation } from '../../domain/run/run-observations.js';
import type { CurrentRun, HealthCheck, RestoreReport, RestoreTest, RestoreTestStatus } from '../../domain/resources/resources.js';
import type { EventType } from '../events.js';

export interface RunActions {
  /**
   * Creates the sandboxes (expiring at sandboxExpiresAt) and requests the restore of `backup`
   * (idempotent); says what it did, or which namespace of the run's name was taken.
   */
  prepare(test: RestoreTest, run: CurrentRun, backup: BackupChoice, sandboxExpiresAt: Date): Promise<PreparationObservation>;
  /** Starts the health checks (the configured ones; undefined: the defaults) in the background. */
  startChecks(test: RestoreTest, run: CurrentRun, checks: HealthCheck[] | undefined): void;
  /** Builds, signs and creates the run's report from the gathered inputs; returns the stored report. */
  writeReport(test: RestoreTest, run: CurrentRun, inputs: ReportInputs): Promise<RestoreReport>;
  /** After the report: removes the restore object, triages, deletes or keeps the sandboxes as `ending` says. */
  cleanUp(test: RestoreTest, run: CurrentRun, report: RestoreReport, ending: RunEnding): Promise<void>;
  /**
   * Applies the run-owned fields of `status` (kube/test-status.ts), guarded by the test's
   * resourceVersion; the stored test, or undefined if it is gone.
   */
  writeStatus(test: RestoreTest, status: RestoreTestStatus): Promise<RestoreTest | undefined>;
  record(test: RestoreTest, type: EventType, reason: string, message: string): void;
  /** Reconcile another test soon (the next run in line). */
  enqueue(key: string): void;
  /** Drops in-memory work of a test (its check task). */
  forget(key: string): void;
}
