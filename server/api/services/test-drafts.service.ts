// Drafted RestoreTests for backed-up namespaces (issue 32). Gather: the coverage and the inventory
// it came from (which namespaces are backed up, by which schedule of the configured tool: a Velero
// Schedule, a Kasten Policy or a Trilio BackupPlan, and which have a test), then,
// per namespace the caller may read, its workloads and Services. Decide: domain/test-drafts.
// Nothing is written: a draft is applied by the caller, through POST /api/v1/tests or kubectl,
// where the permission rule of decision 0009 applies as for any test.
//
// The caller sees a namespace's workloads only if they could list them themselves: one
// SubjectAccessReview per kind read (decision 0009: writing or reading through Rehearsal is never a
// way around RBAC). A namespace they may not read is listed under `skipped` with the permissions
// that are missing, and nothing of it is drafted.
import { stringify } from 'yaml';
import { schedulesBacking, type CoverageResponse, type BackupInventory } from '../../domain/read-models/coverage.js';
import type { RestoreTestSpec } from '../../domain/resources/resources.js';
import { isRfc1123Label } from '../../domain/run/sandbox-names.js';
import { draftRestoreTest, type TestDraft } from '../../domain/test-drafts/test-draft.js';
import { KubeError } from '../../kube/errors.js';
import type { ApiUser } from '../auth/authorizer.js';
import type { AccessReviewer } from '../auth/access-review.js';
import { BackupToolUnavailableError, type ApiCache, type CoverageSource, type WorkloadSource } from '../ports.js';
import { ProblemError, describePermission, invalidRequest, type FieldProblem, type PermissionDescriptor } from '../problem.js';
import type { CreatedTest } from './tests.service.js';
import { requireSynced } from './readiness.js';

const NO_BACKUP_TOOL =
  'No backup tool that lists its backups (Velero, Kasten or Trilio, REHEARSAL_BACKUP_TOOL) is configured on this server.';

/** Namespaces one request may name (a platform team drafts in batches; the default is unbounded). */
export const MAX_REQUESTED_NAMESPACES = 100;
/** Namespaces read at once (four lists and four reviews each). */
const CONCURRENCY = 4;

/** What the drafts read of a namespace: the caller must be allowed each (decision 0009). */
export const DRAFT_READS: readonly Omit<PermissionDescriptor, 'namespace'>[] = [
  { verb: 'list', group: 'apps', resource: 'deployments' },
  { verb: 'list', group: 'apps', resource: 'statefulsets' },
  { verb: 'list', group: 'apps', resource: 'daemonsets' },
  { verb: 'list', group: '', resource: 'services' },
];

/** A drafted RestoreTest, as `kubectl create -f` takes it. */
export interface DraftedRestoreTest {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace: string;
    /** rehearsal.dev/generated-from, and rehearsal.dev/generated-todo when the user must complete it. */
    annotations: Record<string, string>;
  };
  spec: RestoreTestSpec;
}

export interface TestDraftView {
  /** The source namespace the test restores. */
  namespace: string;
  test: DraftedRestoreTest;
  /** How the draft was derived and what was left out, one sentence each. */
  notes: string[];
  /** What the user must complete before the test can pass; empty when nothing. */
  todo: string[];
  /** The test as a YAML document, notes and todo as comments above it (only with yaml=true). */
  yaml?: string;
}

export type SkipReason = 'forbidden' | 'not-backed-up' | 'unreadable';

export interface SkippedNamespace {
  namespace: string;
  /** forbidden: the caller may not read its workloads; not-backed-up: no backup covers it; unreadable: the server could not list it. */
  reason: SkipReason;
  message: string;
  /** The permissions the caller lacks (forbidden only). */
  missingPermissions?: PermissionDescriptor[];
}

export interface TestDraftsResponse {
  generatedAt: string;
  /** The namespace the drafted tests would live in. */
  testNamespace: string;
  drafts: TestDraftView[];
  skipped: SkippedNamespace[];
}

export interface DraftRequest {
  /** Source namespaces asked for; empty = every backed-up namespace without a test. */
  sourceNamespaces: readonly string[];
  testNamespace: string;
  /** The reviewed caller; undefined in auth mode none on port 8080 (nobody to review). */
  caller: ApiUser | undefined;
  yaml: boolean;
}

export interface TestDraftsDeps {
  cache: Pick<ApiCache, 'synced'>;
  coverage: CoverageSource | undefined;
  workloads: WorkloadSource | undefined;
  /** Absent: no caller can be reviewed, and only an unreviewed caller (auth mode none) reads anything. */
  reviewer: AccessReviewer | undefined;
  now: () => Date;
  /** Creates a drafted test under createTest's rule (TestsService.createDrafted). */
  createTest: (test: DraftedRestoreTest, caller: ApiUser | undefined) => Promise<CreatedTest>;
}

export function draftYaml(draft: Pick<TestDraft, 'notes' | 'todo'> & { test: unknown }): string {
  const comments = [
    ...draft.notes.map((note) => `# ${note}`),
    ...draft.todo.map((line) => `# TODO ${line}`),
  ].map((line) => line.replace(/\n/g, ' '));
  return `${comments.join('\n')}${comments.length > 0 ? '\n' : ''}${stringify(draft.test, { lineWidth: 0 })}`;
}

async function inBatches<T, R>(items: readonly T[], size: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += size) {
    results.push(...(await Promise.all(items.slice(start, start + size).map(work))));
  }
  return results;
}

export class TestDraftsService {
  constructor(private readonly deps: TestDraftsDeps) {}

  async draft(request: DraftRequest): Promise<TestDraftsResponse> {
    const problems = requestProblems(request.sourceNamespaces);
    if (problems.length > 0) throw invalidRequest(problems);
    requireSynced(this.deps.cache);
    const { coverage, workloads } = this.deps;
    if (!coverage || !workloads) {
      throw new BackupToolUnavailableError(NO_BACKUP_TOOL);
    }
    const now = this.deps.now();
    const { inventory, coverage: covered } = await coverage.withInventory();
    const entries = new Map(covered.namespaces.map((entry) => [entry.namespace, entry]));
    const requested = [...new Set(request.sourceNamespaces)];
    const candidates =
      requested.length > 0 ? requested : covered.namespaces.filter((entry) => entry.tests.length === 0).map((entry) => entry.namespace);

    const outcomes = await inBatches(candidates, CONCURRENCY, (namespace) =>
      this.draftOne(namespace, entries, inventory, request, now),
    );
    return {
      generatedAt: now.toISOString(),
      testNamespace: request.testNamespace,
      drafts: outcomes.flatMap((outcome) => ('test' in outcome ? [outcome] : [])),
      skipped: outcomes.flatMap((outcome) => ('reason' in outcome ? [outcome] : [])),
    };
  }

  /**
   * Drafts the test of one source namespace and creates it, as createTest would (the caller's
   * restore rights, recorded as its author): `kubectl restoretest generate --apply`. What the
   * drafting skips is an error here: 404 not backed up, 403 not readable by the caller.
   */
  async apply(sourceNamespace: string, testNamespace: string, caller: ApiUser | undefined): Promise<CreatedTest> {
    requireSynced(this.deps.cache);
    const { coverage, workloads } = this.deps;
    if (!coverage || !workloads) {
      throw new BackupToolUnavailableError(NO_BACKUP_TOOL);
    }
    const now = this.deps.now();
    const { inventory, coverage: covered } = await coverage.withInventory();
    const entries = new Map(covered.namespaces.map((entry) => [entry.namespace, entry]));
    const outcome = await this.draftOne(sourceNamespace, entries, inventory, { sourceNamespaces: [sourceNamespace], testNamespace, caller, yaml: false }, now);
    if ('reason' in outcome) {
      switch (outcome.reason) {
        case 'not-backed-up':
          throw new ProblemError('not-found', outcome.message);
        case 'forbidden':
          throw new ProblemError('forbidden', outcome.message, { missingPermissions: outcome.missingPermissions ?? [] });
        default:
          throw new ProblemError('internal-error', outcome.message);
      }
    }
    return this.deps.createTest(outcome.test, caller);
  }

  private async draftOne(
    namespace: string,
    entries: ReadonlyMap<string, CoverageResponse['namespaces'][number]>,
    inventory: BackupInventory,
    request: DraftRequest,
    now: Date,
  ): Promise<TestDraftView | SkippedNamespace> {
    const entry = entries.get(namespace);
    if (!entry) {
      return { namespace, reason: 'not-backed-up', message: `No backup schedule or completed backup covers namespace "${namespace}".` };
    }
    const missing = await this.missingReads(request.caller, namespace);
    if (missing.length > 0) {
      return {
        namespace,
        reason: 'forbidden',
        message: `User "${request.caller?.username ?? 'unknown'}" cannot ${missing.map(describePermission).join(', nor ')}: nothing of it is drafted.`,
        missingPermissions: missing,
      };
    }
    let facts;
    try {
      facts = await this.deps.workloads!.readNamespace(namespace);
    } catch (error) {
      // One namespace the server cannot list (its own RBAC, a namespace deleted meanwhile) does not
      // sink the others; an unreachable apiserver does (503).
      if (error instanceof KubeError && error.kind !== 'Unavailable') {
        return { namespace, reason: 'unreadable', message: `The server could not list the workloads of "${namespace}" (${error.kind}); see the server log.` };
      }
      throw error;
    }
    const schedule = schedulesBacking(inventory, namespace, now)[0];
    const draft = draftRestoreTest(
      facts,
      {
        provider: this.deps.workloads!.provider,
        backedUpBy: entry.backedUpBy,
        ...(schedule
          ? {
              schedule: {
                name: schedule.name,
                cron: schedule.cron,
                ...(schedule.kind ? { kind: schedule.kind } : {}),
                ...(schedule.cadenceNote ? { note: schedule.cadenceNote } : {}),
              },
            }
          : {}),
      },
      { testNamespace: request.testNamespace, now },
    );
    const view: TestDraftView = {
      namespace,
      test: draft.test as DraftedRestoreTest,
      notes: draft.notes,
      todo: draft.todo,
    };
    if (request.yaml) view.yaml = draftYaml(draft);
    return view;
  }

  /** The reads of DRAFT_READS the caller may not do in `namespace` ([] = may do all). */
  private async missingReads(caller: ApiUser | undefined, namespace: string): Promise<PermissionDescriptor[]> {
    const permissions = DRAFT_READS.map((read) => ({ ...read, namespace }));
    if (!caller) return [];
    const reviewer = this.deps.reviewer;
    if (!reviewer) return permissions;
    const decisions = await Promise.all(permissions.map((permission) => reviewer.reviewAccess(caller, permission)));
    return permissions.filter((_permission, index) => !decisions[index]!.allowed);
  }
}

function requestProblems(namespaces: readonly string[]): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (namespaces.length > MAX_REQUESTED_NAMESPACES) {
    problems.push({ field: 'sourceNamespace', message: `must name at most ${MAX_REQUESTED_NAMESPACES} namespaces` });
  }
  namespaces.forEach((namespace, index) => {
    if (!isRfc1123Label(namespace)) {
      problems.push({ field: `sourceNamespace[${index}]`, message: 'must be an RFC 1123 label: lower-case letters, digits and "-", starting and ending with a letter or digit, at most 63 characters' });
    }
  });
  return problems;
}
