// RestoreTest operations: list and read from the cache, create/replace/delete through the
// apiserver, and the manual trigger (decisions 0003, 0012). Validation and the CreateTestInput → spec
// mapping are domain functions (server/domain/test-spec/test-input.ts); this file orchestrates and turns
// Kubernetes outcomes into the API's status codes.
import { randomUUID } from 'node:crypto';
import { ANNOTATION_TRIGGER, API_VERSION, type RestoreTest, type RestoreTestSpec } from '../../domain/resources/resources.js';
import { testResponse } from '../../domain/read-models/aggregates.js';
import {
  inputToSpec,
  specForUpdate,
  validateTestInput,
  type ValidTestInput,
} from '../../domain/test-spec/test-input.js';
import { restoreRequirements } from '../../domain/permissions/restore-permissions.js';
import { describeUncovered, uncoveredSources } from '../../domain/permissions/health-check-policy-permissions.js';
import { authorAnnotations } from '../../domain/permissions/run-permission.js';
import type { TestResponse } from '../../domain/read-models/views.js';
import { isKind } from '../../kube/errors.js';
import type { ReviewedUser } from '../auth/access-review.js';
import type { RestoreAccess } from '../auth/restore-access.js';
import { ALL_NAMESPACES, inScope, type NamespaceScope } from '../auth/namespace-scope.js';
import type { ApiCache, TestWriter } from '../ports.js';
import { ProblemError, invalidRequest, type FieldProblem } from '../problem.js';
import { requireSynced } from './readiness.js';
import type { TriggerWatch } from './trigger-watch.js';

/** How often a write is retried after a resourceVersion conflict before answering 409. */
const CONFLICT_ATTEMPTS = 3;

export interface TestsServiceDeps {
  cache: ApiCache;
  writer: TestWriter;
  triggers: TriggerWatch;
  /** Decision 0009: may the caller restore what a RestoreTest names (SubjectAccessReviews). */
  restoreAccess: RestoreAccess;
  /** How long a trigger waits for the engine to start the run (default 5 s). */
  triggerWaitMs: number;
  newTriggerValue?: () => string;
}

export interface CreatedTest {
  test: TestResponse;
  /** Path of the new resource, for the Location header. */
  location: string;
}

export type TriggerState = 'started' | 'pending';

export interface TriggerOutcome {
  test: TestResponse;
  /** The value written to the trigger-request annotation. */
  request: string;
  /** started: the engine took the request within the wait; pending: not yet (e.g. no leader). */
  state: TriggerState;
}

export function testLocation(namespace: string, name: string): string {
  return `/api/v1/tests/${encodeURIComponent(name)}?namespace=${encodeURIComponent(namespace)}`;
}

/** Why a trigger must be refused now, or undefined when a run may start (decision 0012). */
export function runInProgress(test: RestoreTest): string | undefined {
  const status = test.status ?? {};
  if (status.currentRun) {
    return `run ${status.currentRun.id} is in progress (stage ${status.currentRun.stage})`;
  }
  if (status.phase === 'Running') return 'a run is in progress (phase Running)';
  const requested = test.metadata.annotations?.[ANNOTATION_TRIGGER];
  if (requested && requested !== status.handledTrigger) {
    return 'an earlier trigger request has not been picked up by the engine yet';
  }
  return undefined;
}

function notFound(namespace: string, name: string): ProblemError {
  return new ProblemError('not-found', `RestoreTest "${name}" not found in namespace "${namespace}".`);
}

/**
 * The test as written by `user`: they become its recorded author (decision 0018). An unreviewed
 * caller (auth mode none, port 8080) changes nothing about who is recorded.
 */
function withAuthor(test: RestoreTest, user: ReviewedUser | undefined): RestoreTest {
  if (!user) return test;
  const annotations = { ...test.metadata.annotations, ...authorAnnotations(user) };
  return { ...test, metadata: { ...test.metadata, annotations } };
}

function byNamespaceThenName(a: TestResponse, b: TestResponse): number {
  if (a.namespace !== b.namespace) return a.namespace < b.namespace ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

export class TestsService {
  private readonly newTriggerValue: () => string;

  constructor(private readonly deps: TestsServiceDeps) {
    this.newTriggerValue = deps.newTriggerValue ?? (() => randomUUID());
  }

  /** The tests in the namespaces the caller may read (issue 30). */
  list(scope: NamespaceScope = ALL_NAMESPACES): TestResponse[] {
    requireSynced(this.deps.cache);
    return this.deps.cache
      .listTests()
      .filter((test) => inScope(scope, test.metadata.namespace))
      .map(testResponse)
      .sort(byNamespaceThenName);
  }

  get(name: string, ns: string): TestResponse {
    requireSynced(this.deps.cache);
    const test = this.deps.cache.getTest(ns, name);
    if (!test) throw notFound(ns, name);
    return testResponse(test);
  }

  /**
   * Validates a CreateTestInput body and lists every offending field at once: the domain's checks,
   * the sandbox ttl cap (decision 0009), and a body name/namespace that differs from the request's.
   */
  checkBody(body: unknown, target: { name?: string; namespace: string }): ValidTestInput {
    const validation = validateTestInput(body, { defaultNamespace: target.namespace });
    const errors: FieldProblem[] = validation.ok ? [] : [...validation.errors];
    const raw = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    const flagged = new Set(errors.map((error) => error.field));
    if (target.name !== undefined && typeof raw.name === 'string' && raw.name !== target.name && !flagged.has('name')) {
      errors.push({ field: 'name', message: `must equal the name in the path ("${target.name}")` });
    }
    const namespace = raw.namespace;
    if (typeof namespace === 'string' && namespace !== '' && namespace !== target.namespace && !flagged.has('namespace')) {
      errors.push({ field: 'namespace', message: `must equal the namespace of the request ("${target.namespace}")` });
    }
    if (validation.ok) {
      const { invalid } = restoreRequirements(target.namespace, inputToSpec(validation.value), this.deps.restoreAccess.settings);
      errors.push(...invalid);
    }
    if (!validation.ok || errors.length > 0) throw invalidRequest(errors);
    return validation.value;
  }

  async create(body: unknown, namespace: string, user: ReviewedUser | undefined): Promise<CreatedTest> {
    const input = this.checkBody(body, { namespace });
    const spec = inputToSpec(input);
    await this.deps.restoreAccess.check(user, namespace, spec);
    this.checkPolicyCoverage(namespace, spec);
    return this.write({ apiVersion: API_VERSION, kind: 'RestoreTest', metadata: { name: input.name, namespace }, spec }, user);
  }

  /**
   * Creates a test the server drafted itself (issue 32: POST /api/v1/test-drafts/...), under the
   * same rule as create: the caller's restore rights (decision 0009), recorded as its author. Its
   * inline checks come from the server's own drafting, never from a request body.
   */
  async createDrafted(test: RestoreTest, user: ReviewedUser | undefined): Promise<CreatedTest> {
    const namespace = test.metadata.namespace!;
    const { invalid } = restoreRequirements(namespace, test.spec, this.deps.restoreAccess.settings);
    if (invalid.length > 0) throw invalidRequest(invalid);
    await this.deps.restoreAccess.check(user, namespace, test.spec);
    return this.write(test, user);
  }

  private async write(test: RestoreTest, user: ReviewedUser | undefined): Promise<CreatedTest> {
    const { name, namespace } = test.metadata as { name: string; namespace: string };
    let created: RestoreTest;
    try {
      // The reviewed caller is the author the engine re-checks before each run (decision 0018).
      created = await this.deps.writer.createTest(withAuthor(test, user));
    } catch (error) {
      if (isKind(error, 'AlreadyExists')) {
        throw new ProblemError('already-exists', `RestoreTest "${name}" already exists in namespace "${namespace}".`);
      }
      // Creating in a namespace that does not exist: the body is what is wrong.
      if (isKind(error, 'NotFound')) {
        throw invalidRequest([{ field: 'namespace', message: `"${namespace}" does not exist` }]);
      }
      throw error;
    }
    return { test: testResponse(created), location: testLocation(namespace, name) };
  }

  /**
   * PUT: replaces what CreateTestInput expresses and keeps the rest (domain specForUpdate). A
   * resourceVersion conflict is retried against the fresh object: PUT means "make it this".
   */
  async replace(name: string, ns: string, body: unknown, user: ReviewedUser | undefined): Promise<TestResponse> {
    const input = this.checkBody(body, { name, namespace: ns });

    let current = this.deps.cache.getTest(ns, name) ?? (await this.fetch(ns, name));
    for (let attempt = 1; ; attempt += 1) {
      // The spec as it will be written, kept fields included: a caller may not keep a foreign
      // providerNamespace that an administrator set.
      const spec = specForUpdate(current.spec, input);
      await this.deps.restoreAccess.check(user, ns, spec);
      this.checkPolicyCoverage(ns, spec);
      try {
        return testResponse(await this.deps.writer.replaceTestSpec(withAuthor(current, user), spec));
      } catch (error) {
        if (isKind(error, 'NotFound')) throw notFound(ns, name);
        if (!isKind(error, 'Conflict') || attempt >= CONFLICT_ATTEMPTS) throw error;
      }
      current = await this.fetch(ns, name);
    }
  }

  /**
   * Decision 0018: a test may name a HealthCheckPolicy only if the policy lists every source
   * namespace other than the test's own (a policy not created yet is judged by the engine at run time).
   */
  private checkPolicyCoverage(namespace: string, spec: RestoreTestSpec): void {
    const name = spec.healthCheckPolicy;
    const policy = name ? this.deps.cache.getPolicy?.(namespace, name) : undefined;
    if (!name || !policy) return;
    const uncovered = uncoveredSources(namespace, spec, policy.spec);
    if (uncovered.length > 0) throw invalidRequest([{ field: 'healthCheckPolicy', message: describeUncovered(name, uncovered) }]);
  }

  async delete(name: string, ns: string): Promise<void> {
    try {
      await this.deps.writer.deleteTest(ns, name);
    } catch (error) {
      if (isKind(error, 'NotFound')) throw notFound(ns, name);
      throw error;
    }
  }

  /**
   * Manual trigger: write a fresh trigger-request value guarded by the resourceVersion that was
   * checked (so two concurrent triggers cannot both pass the "not running" check), then wait for
   * the engine to acknowledge it in status.handledTrigger. On a conflict the test is read again
   * and the decision made again.
   */
  async trigger(name: string, ns: string): Promise<TriggerOutcome> {
    requireSynced(this.deps.cache);
    let current = this.deps.cache.getTest(ns, name) ?? (await this.fetch(ns, name));
    for (let attempt = 1; ; attempt += 1) {
      const busy = runInProgress(current);
      if (busy) {
        throw new ProblemError('run-in-progress', `RestoreTest "${name}" in namespace "${ns}": ${busy}.`);
      }
      const value = this.newTriggerValue();
      const wait = this.deps.triggers.waitFor(ns, name, value, this.deps.triggerWaitMs);
      let patched: RestoreTest;
      try {
        patched = await this.deps.writer.annotateTest(
          ns,
          name,
          { [ANNOTATION_TRIGGER]: value },
          current.metadata.resourceVersion,
        );
      } catch (error) {
        wait.cancel();
        if (isKind(error, 'NotFound')) throw notFound(ns, name);
        if (!isKind(error, 'Conflict') || attempt >= CONFLICT_ATTEMPTS) throw error;
        current = await this.fetch(ns, name);
        continue;
      }
      this.deps.triggers.check(ns, name);
      const handled = await wait.handled;
      const latest = handled ?? this.deps.cache.getTest(ns, name) ?? patched;
      return { test: testResponse(latest), request: value, state: handled ? 'started' : 'pending' };
    }
  }

  /** One object from the apiserver (a GET, not a LIST): for writes that need the latest version. */
  private async fetch(namespace: string, name: string): Promise<RestoreTest> {
    try {
      return await this.deps.writer.getTest(namespace, name);
    } catch (error) {
      if (isKind(error, 'NotFound')) throw notFound(namespace, name);
      throw error;
    }
  }
}
