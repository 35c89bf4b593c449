// Generated from openapi/openapi.json by openapi-typescript (npm run openapi:generate). Do not edit.
// Shared by the server's tests and the kubectl plugin; openapi/client.ts builds a typed client on it.
export interface paths {
    "/api/v1/tests": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List RestoreTests
         * @description The RestoreTests in every namespace the caller may list (all of them for a caller who may list
         *     cluster-wide), or in `namespace`; ordered by namespace and name.
         */
        get: operations["listTests"];
        put?: never;
        /**
         * Create a RestoreTest
         * @description Creates a RestoreTest from CreateTestInput; omitted optional fields take their defaults
         *     (decision 0003). Every invalid field is listed in one 400. The namespace is the query's, else
         *     the body's, else the server's; a body namespace that differs from the query's is a 400. The
         *     caller must also be allowed to read Secrets in every source namespace (decision 0009), else 403.
         */
        post: operations["createTest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tests/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a RestoreTest
         * @description One RestoreTest (the target of the Location header of createTest).
         */
        get: operations["getTest"];
        /**
         * Replace a RestoreTest
         * @description Replaces every field CreateTestInput can express (an omitted optional field returns to its
         *     default: an omitted maxRTO or maxRPO removes that target) and keeps what it cannot express:
         *     inline health checks, notifications, sandbox quota and limit range, schedule.suspend, the
         *     provider namespace. A body name or namespace that differs from the request's is a 400.
         */
        put: operations["replaceTest"];
        post?: never;
        /**
         * Delete a RestoreTest
         * @description Deletes a RestoreTest; the server then removes its RestoreReports (archived first when the evidence archive is on).
         */
        delete: operations["deleteTest"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tests/{name}/trigger": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Trigger a run now
         * @description Starts a run now, whatever the schedule. Refused with 409 while a run is in progress or an
         *     earlier trigger has not been picked up yet. The API writes a fresh value to the
         *     rehearsal.dev/trigger-request annotation and waits up to ~5 s for the engine to acknowledge
         *     it (status.handledTrigger); the answer then shows phase Running and
         *     Rehearsal-Trigger-State: started. If the engine does not pick it up in time (for example no
         *     leader is elected), the answer is still 200 with the current state and
         *     Rehearsal-Trigger-State: pending: the request stays recorded and runs when the engine sees it.
         */
        post: operations["triggerTest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/test-drafts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Draft RestoreTests for untested, backed-up namespaces
         * @description Drafts a RestoreTest per backed-up namespace: by default every namespace a backup covers that
         *     no RestoreTest restores, else the `sourceNamespace`s named. Per namespace: the provider and
         *     `latest` backup of the server's backup tool (REHEARSAL_BACKUP_TOOL: velero, kasten or trilio);
         *     a UTC cron one hour after the most frequent backup schedule's time (a Velero Schedule, a
         *     Kasten Policy's frequency and subFrequency, a Trilio BackupPlan's schedule Policy), at most
         *     once a day (daily at 04:00 when no schedule says when, the notes saying why); a podsReady check per
         *     Deployment, StatefulSet and DaemonSet; an httpGet check per readiness or liveness httpGet
         *     probe, through the Service that reaches its port; a tcpSocket check per Service port; and, for
         *     postgres, mysql and mariadb images, a critical sqlQuery skeleton that fails until its query is
         *     written (annotation rehearsal.dev/generated-todo says what to complete). A namespace's
         *     workloads are read only if the caller may list Deployments, StatefulSets, DaemonSets and
         *     Services there; otherwise it is listed under `skipped` with the missing permissions. The
         *     backup tool's objects are read only if the caller may list them (x-rehearsal-rbac: only the
         *     rules of the server's tool are asked). Nothing is written: create a draft with createTest or kubectl.
         */
        get: operations["draftTests"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/test-drafts/{sourceNamespace}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create the drafted test of a namespace
         * @description Creates the test draftTests drafts for one source namespace, as createTest creates a test: the
         *     caller needs `create restoretests` in the test's namespace and the restore rights of decision
         *     0009 in the source namespace (else 403 naming them), and is recorded as its author. The draft's
         *     checks are the server's own, never a request body's; a sqlQuery skeleton fails until its query
         *     is written (edit the test, or generate YAML instead and complete it before applying).
         */
        post: operations["createDraftedTest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/schedules": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List backup schedules
         * @description Velero Schedules in the Velero namespace, by name. Read live from the cluster (not served from
         *     the cache: it is rarely called and Velero is optional).
         */
        get: operations["listSchedules"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sandboxes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List sandbox namespaces
         * @description Every namespace carrying Rehearsal's sandbox label, sorted by name, with what the server makes
         *     of it (state) and why (message). Read live from the cluster: an administrator's rare call.
         */
        get: operations["listSandboxes"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sandboxes/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove an orphaned sandbox
         * @description Removes an orphaned sandbox now (the janitor would at its expiry). Refused for any other
         *     state: the engine removes its own sandboxes, and the server never deletes a namespace no record
         *     or label vouches for. With `uid`, only the namespace with that UID is removed; the delete
         *     carries the UID read at the decision as a precondition in any case.
         */
        delete: operations["removeOrphanedSandbox"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tests/{name}/diagnosis": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Diagnosis of a failed or partial run
         * @description Why a failed or partial run's application did not come up, collected from its sandbox before
         *     the sandbox could be deleted: Pods that were not Ready (phase, container states and reasons,
         *     the scheduler's reason), Warning events, pending PersistentVolumeClaims, the last log lines of
         *     crashing containers (when the cluster serves logs), and remediation hints for the common causes.
         *     Stored compressed in the server's namespace, where no tenant can forge it. The restored
         *     application's own text (log lines, event and container messages) is included only for a caller
         *     who may get secrets in every source namespace of the run; for anyone else it is left out and
         *     `redacted` is true.
         */
        get: operations["getRunDiagnosis"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tests/{name}/notification-preview": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Preview the notification of a run's event
         * @description The notification a run's event sends: the JSON body of a webhook channel (POSTed with
         *     `Content-Type: application/json`, `X-Rehearsal-Event: <type>`, `X-Rehearsal-Delivery: <id>` and
         *     `X-Rehearsal-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" with the channel's
         *     key>`), and the `data` of a CloudEvent (structured mode, `application/cloudevents+json`, type
         *     `dev.rehearsal.run.<event>`, id = this id). Slack channels get a message built from it. Each
         *     event is sent at most once per run and channel; the id is stable, so receivers can dedupe.
         */
        get: operations["previewRunNotification"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/reports": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List RestoreReports
         * @description RestoreReports completed in the last `days` days, newest first, exactly as stored in the
         *     cluster (apiVersion, kind, metadata, spec). Narrow with `test` (and its `namespace`), or with
         *     `namespace` alone, and by `result`; `latest` keeps only the most recent report of each test.
         *     Without `test` or `namespace`: the reports in every namespace the caller may list (all of them
         *     for a caller who may list cluster-wide); the headers Rehearsal-Omitted-Namespaces and
         *     Rehearsal-Omitted-Namespace-Names report the namespaces left out.
         *
         *     Paged like a Kubernetes list: at most `limit` reports per answer; when more follow, the
         *     answer's `Link` header names the next page (`rel="next"`, RFC 8288), a URL with the same query
         *     and a `continue` token. With `latest=true` the answer holds one report per test and is not
         *     paged (`limit` and `continue` do not apply).
         */
        get: operations["listReports"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/compliance/pdf": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Compliance evidence as a signed PDF
         * @description The compliance evidence of one framework as a signed PDF for auditors: cover, scope and RTO
         *     targets, executive summary, status rules, control table with evidence and what is not
         *     evidenced, coverage matrix, RTO analysis, exceptions and remediation, limitations, the
         *     attestation page (Ed25519 signature over the embedded evidence, key id, product version,
         *     generation time) and the run counts per RestoreTest. Runs are listed individually only as
         *     exceptions, at most 100 (the unremediated, late and pending ones first), followed by "N more"
         *     (the full list: GET /api/v1/reports), so the document is bounded for any history. Same
         *     evaluation as GET /api/v1/compliance.
         *     Needs the enterprise tier with the feature flag pdfExport (402 otherwise). Served as an
         *     attachment named rehearsal-compliance-<framework>-<period>d.pdf.
         */
        get: operations["getCompliancePdf"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/restore-tests/{name}/report.pdf": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One RestoreTest's report as a signed PDF
         * @description The report of one RestoreTest as a signed PDF: test metadata (name, schedule, backup source),
         *     the full health-check configuration, the run history of the period with UTC timestamps,
         *     scores and RTO, a pass/fail breakdown per check, and the attestation page (signature, key id,
         *     product version, generation time). Needs the enterprise tier with the feature flag pdfReports
         *     (402 otherwise).
         */
        get: operations["getTestReportPdf"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/license": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The license in effect
         * @description The tier in effect (community, pro or enterprise), expiry and trial dates, and the feature
         *     flags it enables. No license, a license whose signature does not verify, or an expired one
         *     means community (isExpired is true for an expired one). A changed license Secret takes effect
         *     without a restart. Asks for the dashboard's own permission (list restoretests), since the
         *     license decides which dashboard pages work.
         */
        get: operations["getLicense"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Health of the API server
         * @description Always 200 while the process serves HTTP; `status` says whether the caches have loaded
         *     (until then the read endpoints answer 503 not-ready). Needs no credentials.
         */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/evidence/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Evidence verification keys
         * @description Every public key that verifies evidence: the current key (which signs new RestoreReports and
         *     PDFs) first, then keys retired by a rotation, which still verify what they signed. keyId is
         *     the first 16 hex characters of SHA-256 over the key's SPKI DER encoding, as in
         *     spec.evidence.keyId and the PDF attestation.
         */
        get: operations["listEvidenceKeys"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/summary": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Summary of the last 24 hours
         * @description Figures over the last 24 hours (UTC): mean score, runs by result, mean RTO, tests that ran,
         *     and the source namespaces covered by any RestoreTest.
         */
        get: operations["getSummary"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/summary/daily": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Daily scores and run counts
         * @description One entry per UTC day, oldest first, ending today; days without runs are zeros.
         */
        get: operations["getDailySummary"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/alerts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Recent failures and regressions
         * @description Runs completed in the last `hours` hours that failed, regressed by more than 10 points,
         *     breached the RTO target of a test with alertOnExceed, or restored a backup older than the
         *     cluster's alerts.maxBackupAge (ConfigMap rehearsal-cluster-defaults, 48h by default); a failed
         *     run ending alerts.consecutiveFailures failures in a row says so. Newest first.
         */
        get: operations["listAlerts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/upcoming": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Upcoming runs
         * @description Tests with a scheduled next run: first the overdue ones (`overdue: true`, a run due over a
         *     minute ago that has not started: engine down, or waiting for a run slot), most overdue first;
         *     then the rest soonest first. Suspended tests are left out.
         */
        get: operations["listUpcoming"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/coverage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Backed-up namespaces and their restore-test coverage
         * @description Every namespace a backup schedule or a completed backup covers, with its status: `tested` (a
         *     passing run restored it within its window: the interval of its most frequent backup schedule,
         *     at least REHEARSAL_COVERAGE_MIN_WINDOW), `stale` (the newest pass is older) or `untested`
         *     (never a passing run). Untested and stale namespaces come first. The backup tool's objects are
         *     re-read at most every REHEARSAL_COVERAGE_REFRESH_SECONDS; runs count as soon as they are reported.
         *     A caller who may not list RestoreTests and RestoreReports cluster-wide sees the backed-up
         *     namespaces where they may (their counts, and only the tests in those namespaces).
         */
        get: operations["getCoverage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/compliance": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Compliance evidence for one framework
         * @description Evidence summary for one framework over the last `period` days: run totals, pass rate, SLA
         *     compliance, and each control's status (satisfied, at_risk, not_tested) with its evidence
         *     sentence. Statuses say what the evidence supports, not that a system is compliant.
         */
        get: operations["getCompliance"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/compliance": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Compliance overview (dashboard path)
         * @description The dashboard's Compliance page: every framework's ComplianceResponse over the period, and
         *     each RestoreTest's pass rate and run count. The page offers 30, 60 and 90 days. The page is a
         *     licensed feature: Team (pro) tier or above with the flag compliancePage, else 402. (The JSON
         *     API GET /api/v1/compliance stays available on every tier.) Through the Kubernetes API
         *     aggregation layer: /apis/api.rehearsal.dev/v1/compliance/overview.
         */
        get: operations["getComplianceOverview"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** @description One offending input (a body field such as sourceNamespaces[1], or a query parameter). */
        FieldProblem: {
            field: string;
            message: string;
        };
        /** @description A Kubernetes RBAC permission, as a SubjectAccessReview asks it. */
        PermissionDescriptor: {
            verb: string;
            /** @description API group; "" is the core group. */
            group: string;
            resource: string;
            subresource?: string;
            /** @description Absent for a cluster-wide permission. */
            namespace?: string;
            name?: string;
        };
        /**
         * @description An error response (RFC 9457, application/problem+json).
         * @example {
         *       "type": "https://rehearsal.dev/problems/invalid-request",
         *       "title": "Invalid request",
         *       "status": 400,
         *       "detail": "2 fields are invalid",
         *       "instance": "/api/v1/tests",
         *       "errors": [
         *         {
         *           "field": "cron",
         *           "message": "is required"
         *         },
         *         {
         *           "field": "sourceNamespaces",
         *           "message": "is required"
         *         }
         *       ]
         *     }
         */
        ProblemDetails: {
            /** @description URI identifying the problem type (https://rehearsal.dev/problems/<slug>). */
            type: string;
            /** @description Short summary of the problem type; the same for every occurrence. */
            title: string;
            /**
             * Format: int32
             * @description The HTTP status code.
             */
            status: number;
            /** @description What went wrong in this occurrence, for a human. */
            detail: string;
            /** @description The request path this problem occurred on. */
            instance: string;
            /** @description Every offending field (validation problems only). */
            errors?: components["schemas"]["FieldProblem"][];
            /** @description The RBAC permissions the caller lacks (forbidden only). */
            missingPermissions?: components["schemas"]["PermissionDescriptor"][];
        };
        /** @enum {string} */
        BackupSelectStrategy: "latest" | "randomWithin";
        /** @description spec.backupSource.select of a RestoreTest. */
        BackupSelectInput: {
            /** @description latest: the newest restorable backup; randomWithin: a seeded draw from the window. */
            strategy: components["schemas"]["BackupSelectStrategy"];
            /**
             * @description The window before the run's start (randomWithin only, required there): a duration of h, m
             *     and s between 1h and 8784h (366 days), e.g. 720h for 30 days.
             */
            within?: string | null;
        };
        /** @description A label value: at most 63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit (or empty). */
        LabelValue: string;
        /** @description One requirement: In and NotIn need values, Exists and DoesNotExist take none. */
        LabelSelectorRequirementInput: {
            /** @description Label key: an optional DNS-subdomain prefix and "/", then a name of at most 63 characters. */
            key: string;
            /** @enum {string} */
            operator: "In" | "NotIn" | "Exists" | "DoesNotExist";
            values?: components["schemas"]["LabelValue"][];
        };
        /** @description A Kubernetes label selector: every label and every requirement must hold. */
        LabelSelectorInput: {
            /** @description Label key = value pairs an object must all carry (at most 16). */
            matchLabels?: {
                [key: string]: components["schemas"]["LabelValue"];
            };
            /** @description Label requirements an object must all meet. */
            matchExpressions?: components["schemas"]["LabelSelectorRequirementInput"][];
        };
        /** @description A resource type as the backup tools select it. */
        ResourceTypeInput: {
            /** @description API group; empty or absent for the core group. */
            group?: string;
            /** @description API version, e.g. v1. */
            version: string;
            /** @description Kind, e.g. Ingress. */
            kind: string;
            /** @description Plural resource name, e.g. ingresses. */
            resource: string;
        };
        /** @description The kind a patch applies to, and optionally the one object. */
        RestorePatchTarget: {
            /** @description API group; empty or absent for the core group. */
            group?: string;
            /** @description API version, e.g. v1. */
            version: string;
            /** @description Kind, e.g. Ingress. */
            kind: string;
            /** @description Plural resource name, e.g. ingresses. */
            resource: string;
            /** @description Only the object of this name. */
            name?: string;
        };
        RestorePatchCondition: {
            /** @description JSON Pointer. */
            path: string;
            /** @description Any JSON value but null. */
            value: unknown;
        };
        RestorePatchOperationInput: {
            /** @enum {string} */
            op: "add" | "replace" | "remove" | "copy" | "move";
            /** @description JSON Pointer. */
            path: string;
            /** @description Source of copy and move (required for them, only for them). */
            from?: string;
            /** @description Any JSON value (add, replace; absent = null). */
            value?: unknown;
        };
        /** @description JSON patches on the restored objects of one kind. */
        RestorePatchInput: {
            /** @description Unique in the test. */
            name: string;
            target: components["schemas"]["RestorePatchTarget"];
            /** @description Only objects where each path holds exactly its value. */
            when?: components["schemas"]["RestorePatchCondition"][];
            operations: components["schemas"]["RestorePatchOperationInput"][];
        };
        /**
         * @description The default restore transforms (server/domain/run/restore-transforms.ts; docs/restore-transforms.md).
         * @enum {string}
         */
        DefaultTransformId: "suspend-cronjobs" | "hold-jobs" | "services-cluster-ip" | "drop-external-dns-annotations" | "unbind-claims" | "exclude-host-routes" | "exclude-external-callers" | "exclude-gitops" | "exclude-network-policies";
        /**
         * @description Pod Security Standards profiles, least to most strict (pod-security.kubernetes.io/enforce values).
         * @enum {string}
         */
        PodSecurityLevel: "privileged" | "baseline" | "restricted";
        /** @description spec.restore of a RestoreTest. */
        RestoreInput: {
            /** @description More resource types not to restore. */
            exclude?: components["schemas"]["ResourceTypeInput"][];
            /** @description JSON patches on restored objects, applied before the defaults; names unique. */
            patches?: components["schemas"]["RestorePatchInput"][];
            /** @description Default transforms to do without (administer); a repeat counts once. */
            removeDefaults?: components["schemas"]["DefaultTransformId"][];
            /** @description The least strict Pod Security profile of the sandboxes (below the installation floor: administer). */
            podSecurity?: components["schemas"]["PodSecurityLevel"];
        };
        /** @enum {string} */
        LogContainers: "failing" | "all";
        /** @description The log collection of a test, every default applied (issue 30). */
        LogCollectionResponse: {
            /**
             * Format: int32
             * @description Last lines kept per container log.
             */
            lines: number;
            /** @description failing: the containers that are not Ready; all: every container. */
            containers: components["schemas"]["LogContainers"];
            initContainers: boolean;
            previous: boolean;
            events: boolean;
        };
        PreflightProblemResponse: {
            /** @description apiVersions, storageClasses, references, images or quota. */
            check: string;
            /** @description error (fails the pre-flight) or warning. */
            severity: string;
            message: string;
        };
        /** @description status.preflight of a test (issue 32): the newest backup checked without restoring it. */
        PreflightResponse: {
            backupName: string;
            checkedAt: string;
            /** @description passed, failed, or error (the backup or the cluster could not be read). */
            result: string;
            /** @description One line naming the first problem. */
            summary: string;
            /** @description Errors first, at most 20. */
            problems: components["schemas"]["PreflightProblemResponse"][];
        };
        TestResponse: {
            name: string;
            namespace: string;
            provider: string;
            /** @description The cron; empty for a test that runs on new backups only (onBackup). */
            schedule: string;
            /** @description Idle, Running, Completed or Failed. */
            phase: string;
            /** Format: int32 */
            lastScore: number;
            /** @description pass, fail or partial; empty before the first run. */
            lastResult: string;
            /** @description Completion time of the most recent run; empty before the first run. */
            lastRunAt: string;
            /** @description Next scheduled run; empty when suspended or not yet computed. */
            nextRunAt: string;
            sourceNamespaces: string[];
            /** @description spec.sla.maxRTO, or empty when no SLA is configured. */
            rtoTarget: string;
            /** @description Backup restored: a backup's name, or "latest". */
            backupName?: string;
            /** @description spec.backupSource.select: how latest is resolved (issue 32); absent = latest. */
            backupSelect?: components["schemas"]["BackupSelectInput"];
            /** @description IANA time zone of the schedule. */
            timezone?: string;
            /** @description The test also (or, without a cron, only) runs after each new backup of its source (issue 32). */
            onBackup?: boolean;
            /**
             * Format: int32
             * @description With onBackup: runs on every Nth new backup.
             */
            everyNthBackup?: number;
            /** @description Prefix of the sandbox namespaces. */
            namespacePrefix?: string;
            /** @description Longest life of a sandbox (a failed or partial run's sandbox is kept that long after the run started). */
            ttl?: string;
            /** @description strict or none. */
            networkIsolation?: string;
            /** @description Name of the HealthCheckPolicy; empty for the built-in checks. */
            healthCheckPolicy?: string;
            /** @description spec.sla.maxRPO, or empty when no RPO target is configured. */
            rpoTarget?: string;
            /** @description Whether an RTO over rtoTarget raises an alert (false without an SLA). */
            alertOnExceed?: boolean;
            /**
             * Format: int32
             * @description Reports kept.
             */
            historyLimit?: number;
            /** @description spec.backupSource.labelSelector: only the matching objects are restored; absent = every object. */
            labelSelector?: components["schemas"]["LabelSelectorInput"];
            /** @description spec.backupSource.includedResources: only these types are restored; absent = every type. */
            includedResources?: components["schemas"]["ResourceTypeInput"][];
            /** @description spec.restore: the test's restore transforms beyond the defaults; absent = the defaults only. */
            restore?: components["schemas"]["RestoreInput"];
            /**
             * @description spec.logCollection with its omitted fields filled in: what a failed or partial run's diagnosis
             *     keeps; absent = the defaults (100 lines of the failing containers, init, previous, events).
             */
            logCollection?: components["schemas"]["LogCollectionResponse"];
            /** @description The newest backup's pre-flight restorability check (issue 32); absent before the first. Read-only. */
            preflight?: components["schemas"]["PreflightResponse"];
        };
        /** @enum {string} */
        Provider: "velero" | "kasten" | "trilio";
        /** @description A namespace name: an RFC 1123 label. */
        NamespaceName: string;
        /**
         * @description spec.logCollection of a RestoreTest: what a failed or partial run's diagnosis keeps of its
         *     sandbox (issue 30). Every field is optional; every line kept is scrubbed of secrets and the
         *     whole is bounded in bytes (a truncated log says so).
         */
        LogCollectionInput: {
            /**
             * Format: int32
             * @description Last lines kept per container log.
             * @default 100
             */
            lines?: number | null;
            /**
             * @description failing: the containers that are not Ready (default); all: every container of the sandboxes.
             * @enum {string|null}
             */
            containers?: "failing" | "all" | null;
            /**
             * @description Also the init containers of the chosen Pods.
             * @default true
             */
            initContainers?: boolean | null;
            /**
             * @description Also the previous instance's log of a container that restarted (a crash-looping container's
             *     last words are there).
             * @default true
             */
            previous?: boolean | null;
            /**
             * @description Keep the sandboxes' Warning events.
             * @default true
             */
            events?: boolean | null;
        };
        /**
         * @description Request body of POST /api/v1/tests and PUT /api/v1/tests/{name}. An optional field that is
         *     absent, null or "" takes its default. Rules JSON Schema cannot state (the server answers 400
         *     naming the field): cron must be a valid schedule (no reversed ranges such as 5-3, no repeated
         *     values, a day that exists in the month), timezone a zone the server knows, alertOnExceed true
         *     requires maxRTO, restore patch names are unique, `from` is given for copy and move (only), a
         *     `when` value is not null, labelSelector's In and NotIn have values and Exists and DoesNotExist
         *     none, an included resource type is listed once, provider trilio does not take labelSelector and
         *     includedResources together, cron is required unless onBackup is true, everyNthBackup needs
         *     onBackup true, onBackup needs backupName latest, and on PUT a name or namespace in the body must
         *     equal the request's.
         */
        CreateTestInput: {
            /** @description Name of the RestoreTest: an RFC 1123 label. */
            name: string;
            /**
             * @description Namespace of the RestoreTest (an RFC 1123 label); default: the server's namespace
             *     (rehearsal-system).
             */
            namespace?: string | null;
            /** @description The backup provider whose backups are restored. */
            provider: components["schemas"]["Provider"];
            /**
             * @description Backup to restore (a Kubernetes object name); "latest" picks the newest completed backup of
             *     the sources.
             * @default latest
             */
            backupName?: string | null;
            /**
             * @description How the backup is chosen when backupName is latest (issue 32): strategy latest (default) or
             *     randomWithin, a backup drawn from those completed within `within` before the run started,
             *     seeded by the test uid and run id; the report names the choice and why. randomWithin needs
             *     backupName latest. Absent or null: latest.
             */
            backupSelect?: components["schemas"]["BackupSelectInput"];
            /** @description Source namespaces to restore: RFC 1123 labels, each at most once. */
            sourceNamespaces: components["schemas"]["NamespaceName"][];
            /**
             * @description A 5-field cron expression (minute hour day-of-month month day-of-week; numbers, names such
             *     as mon or jan, *, ranges, lists and steps) or one of the macros `@yearly`, `@annually`,
             *     `@monthly`, `@weekly`, `@daily`, `@midnight`, `@hourly`. Spaces around it are ignored.
             *     Required unless onBackup is true (then absent or null = runs on new backups only).
             */
            cron?: string | null;
            /**
             * @description Also run when the backup source completes a new restorable backup (issue 32), in addition to
             *     cron or, without cron, instead of it; the run restores exactly that backup and its report's
             *     trigger is `backup`. Several new backups seen at once (after downtime, or during a run) start
             *     one run, of the newest. Needs backupName latest.
             * @default false
             */
            onBackup?: boolean | null;
            /**
             * Format: int32
             * @description With onBackup: run on every Nth new backup (1 = each, the default); the others are counted,
             *     not run. (No schema default: the server would fill it into bodies without onBackup, where
             *     everyNthBackup is refused.)
             */
            everyNthBackup?: number | null;
            /**
             * @description IANA time zone of the schedule, such as UTC or Europe/Berlin.
             * @default UTC
             */
            timezone?: string | null;
            /**
             * @description Prefix of the sandbox namespaces: an RFC 1123 label of at most 20 characters (the
             *     RestoreTest CRD's limit), so that sandbox names fit in 63.
             * @default rehearsal
             */
            namespacePrefix?: string | null;
            /**
             * @description Longest life of a sandbox: a duration of whole hours, minutes and seconds in that order
             *     (1h, 15m, 11m35s), longer than 0s, and at most the installation's cap (168h unless the
             *     administrator sets REHEARSAL_MAX_SANDBOX_TTL; decision 0009).
             * @default 1h
             */
            ttl?: string | null;
            /**
             * @description strict: the sandbox gets a deny-all NetworkPolicy; none: no isolation (admin only).
             * @enum {string|null}
             */
            networkIsolation?: "strict" | "none" | "" | null;
            /**
             * @description Name of a HealthCheckPolicy in the test's namespace (an RFC 1123 label); default: the
             *     built-in checks.
             */
            healthCheckPolicy?: string | null;
            /** @description RTO target, a duration like ttl (e.g. 15m); default: no SLA. */
            maxRTO?: string | null;
            /**
             * @description RPO target, a duration like ttl (e.g. 24h): the most data a restore may lose, measured by a
             *     freshness check as the restore request time minus the newest restored data; alert
             *     RestoreTestRPOOverSLA fires above it. Default: no RPO target. On PUT, like maxRTO, an omitted
             *     maxRPO removes the target.
             */
            maxRPO?: string | null;
            /**
             * @description Alert when the measured RTO exceeds maxRTO (true requires maxRTO).
             * @default false
             */
            alertOnExceed?: boolean | null;
            /**
             * Format: int32
             * @description Reports to keep.
             * @default 90
             */
            historyLimit?: number | null;
            /**
             * @description Restore only the objects whose labels match (spec.backupSource.labelSelector): for large
             *     namespaces where the test needs one application. Absent: every object. Each provider passes
             *     it to its tool (docs/decisions/0003-restore-test-input-and-defaults.md); a combination a tool
             *     cannot express is refused (400 naming the field), never widened to everything.
             */
            labelSelector?: components["schemas"]["LabelSelectorInput"];
            /**
             * @description Restore only objects of these resource types (spec.backupSource.includedResources), e.g.
             *     deployments.apps; absent: every type.
             */
            includedResources?: components["schemas"]["ResourceTypeInput"][];
            /**
             * @description Restore transforms beyond the defaults (docs/restore-transforms.md), as spec.restore of the
             *     RestoreTest: exclusions and patches anyone may add; removeDefaults, a podSecurity below the
             *     installation floor, or a patch on CronJobs, Services, Pods or RBAC objects need the
             *     administer verb (else 403 naming it). Absent: the defaults only.
             */
            restore?: components["schemas"]["RestoreInput"];
            /**
             * @description Which container logs a failed or partial run's diagnosis keeps (spec.logCollection, issue 30).
             *     Absent: every default (100 lines of the failing containers, their init containers and
             *     previous instances, and the Warning events).
             */
            logCollection?: components["schemas"]["LogCollectionInput"];
        };
        /** @description Construct a type with a set of properties K of type T */
        "Record_string.string_": {
            [key: string]: string;
        };
        /**
         * @description A label selector operator (Kubernetes' LabelSelectorRequirement).
         * @enum {string}
         */
        LabelSelectorOperator: "In" | "NotIn" | "Exists" | "DoesNotExist";
        /** @description A Kubernetes label selector: every label and every requirement must hold. */
        LabelSelector: {
            matchLabels?: components["schemas"]["Record_string.string_"];
            matchExpressions?: {
                values?: string[];
                operator: components["schemas"]["LabelSelectorOperator"];
                key: string;
            }[];
        };
        /** @description A resource type as the backup tools select it. */
        ResourceTypeRef: {
            /** @description API group; absent or "" for the core group. */
            group?: string;
            /** @description API version (Trilio's selectors name one), e.g. v1. */
            version: string;
            kind: string;
            /** @description Plural resource name, e.g. ingresses (Velero and Kasten select by it). */
            resource: string;
        };
        /** @enum {string} */
        NetworkIsolation: "strict" | "none";
        /** @description Construct a type with a set of properties K of type T */
        "Record_string.unknown_": {
            [key: string]: unknown;
        };
        /** @enum {string} */
        CheckKind: "podsReady" | "httpGet" | "tcpSocket" | "sqlQuery" | "resourceExists" | "exec" | "file";
        PodsReadyCheck: {
            /** @description Label selector (matchLabels) within the sandbox; empty = every pod. */
            selector?: components["schemas"]["Record_string.string_"];
            /**
             * Format: double
             * @description Minimum number of Ready pods; default: every selected pod must be Ready.
             */
            minReady?: number;
        };
        HttpGetCheck: {
            service: string;
            /** Format: double */
            port: number;
            path?: string;
            /** @enum {string} */
            scheme?: "http" | "https";
            /** Format: double */
            expectedStatus?: number;
            /** @description Regular expression the response body must match. */
            bodyMatch?: string;
        };
        TcpSocketCheck: {
            service: string;
            /** Format: double */
            port: number;
        };
        SqlQueryCheck: {
            /** @enum {string} */
            engine: "postgres" | "mysql";
            service: string;
            /** Format: double */
            port?: number;
            database: string;
            /** @description Credentials come from a Secret restored into the sandbox. */
            credentialsSecret: {
                passwordKey?: string;
                usernameKey?: string;
                name: string;
            };
            query: string;
            /**
             * Format: double
             * @description At least this many rows (default 1).
             */
            expectedMinRows?: number;
            /** @description The first column of the first row, as a string, must equal this. */
            expectedValue?: string;
            /**
             * @description The first column of the first row is the time of the newest data in the restored copy
             *     (timestamp, or Unix seconds): the run's measured RPO comes from it (issue 27).
             */
            freshness?: boolean;
        };
        ResourceExistsCheck: {
            apiVersion: string;
            kind: string;
            name: string;
            /** @description Which source namespace's sandbox to look in; default: the first. */
            sourceNamespace?: string;
        };
        ExecCheck: {
            selector?: components["schemas"]["Record_string.string_"];
            container?: string;
            command: string[];
            /** Format: double */
            expectedExitCode?: number;
            /**
             * @description The command's standard output is the time of the newest data in the restored copy
             *     (timestamp, or Unix seconds): the run's measured RPO comes from it (issue 27).
             */
            freshness?: boolean;
        };
        /**
         * @description Where a file check's freshness reads the time of the newest data (issue 27).
         * @enum {string}
         */
        FileFreshnessSource: "modificationTime" | "content";
        /**
         * @description A file on a restored claim, read by a short-lived read-only pod in the sandbox (decision 0020):
         *     it exists (or, with `exists: false`, does not), and has the size, SHA-256 and sentinel given.
         */
        FileCheck: {
            /** @description The PersistentVolumeClaim (its name in the source namespace, the same in the sandbox). */
            claim: string;
            /** @description Absolute path inside the volume ("/" is the volume's root), without "..". */
            path: string;
            /** @description Default true; false: the check passes when the path does not exist. */
            exists?: boolean;
            /**
             * Format: double
             * @description The file's size in bytes.
             */
            size?: number;
            /** @description The file's SHA-256, 64 lowercase hex digits. */
            sha256?: string;
            /** @description A string the file contains (a sentinel written before the backup). */
            contains?: string;
            /**
             * @description The file holds the newest data of the restored copy: its modification time (default), or
             *     its content (a timestamp or Unix seconds), is the newest-data time the RPO is measured from.
             */
            freshness?: boolean;
            freshnessSource?: components["schemas"]["FileFreshnessSource"];
        };
        HealthCheck: {
            name: string;
            kind: components["schemas"]["CheckKind"];
            /** @description Duration string, default 30s. */
            timeout?: string;
            /** @description Which source namespace's sandbox the check targets; default: the first. */
            sourceNamespace?: string;
            /** @description A failing critical check makes the run fail; any other failing check caps it at partial. */
            critical?: boolean;
            podsReady?: components["schemas"]["PodsReadyCheck"];
            httpGet?: components["schemas"]["HttpGetCheck"];
            tcpSocket?: components["schemas"]["TcpSocketCheck"];
            sqlQuery?: components["schemas"]["SqlQueryCheck"];
            resourceExists?: components["schemas"]["ResourceExistsCheck"];
            exec?: components["schemas"]["ExecCheck"];
            file?: components["schemas"]["FileCheck"];
        };
        /** @description The objects a restore patch changes: every object of the type, or the one named. */
        PatchedObjects: {
            /** @description API group; absent or "" for the core group. */
            group?: string;
            /** @description API version (Trilio's selectors name one), e.g. v1. */
            version: string;
            kind: string;
            /** @description Plural resource name, e.g. ingresses (Velero and Kasten select by it). */
            resource: string;
            name?: string;
        };
        /** @description A JSON Patch operation (RFC 6902) on a restored object. */
        RestorePatchOperation: {
            /** @enum {string} */
            op: "add" | "replace" | "remove" | "copy" | "move";
            /** @description JSON Pointer (RFC 6901). */
            path: string;
            /** @description Source of copy and move. */
            from?: string;
            /** @description Any JSON value (add, replace). */
            value?: unknown;
        };
        /** @description JSON patches applied to the restored objects of one kind (all of them, or one by name). */
        RestorePatch: {
            /** @description Unique within the test: the report and the tool's transform name it. */
            name: string;
            target: components["schemas"]["PatchedObjects"];
            /** @description Only objects where every path holds exactly this value (a JSON Patch test). */
            when?: {
                value: unknown;
                path: string;
            }[];
            operations: components["schemas"]["RestorePatchOperation"][];
        };
        /**
         * @description The test's changes to the default restore transforms: additions anyone who may write the test
         *     may make; removing a default or lowering the Pod Security floor needs the administer verb.
         */
        RestoreSpec: {
            /** @description More resource types not to restore. */
            exclude?: components["schemas"]["ResourceTypeRef"][];
            /** @description JSON patches, applied before the defaults (so a patch cannot undo one). */
            patches?: components["schemas"]["RestorePatch"][];
            /** @description Default transforms this test does without (administer). */
            removeDefaults?: components["schemas"]["DefaultTransformId"][];
            /** @description Pod Security floor of this test's sandboxes (below the installation's: administer). */
            podSecurity?: components["schemas"]["PodSecurityLevel"];
        };
        /** @enum {string} */
        NotificationChannelType: "slack" | "webhook" | "cloudevents";
        SecretKeySelector: {
            name: string;
            key: string;
        };
        NotificationChannel: {
            name: string;
            type: components["schemas"]["NotificationChannelType"];
            /** @description Secret key with the URL (in the test's namespace; the server's for the global default). */
            urlSecretRef: components["schemas"]["SecretKeySelector"];
            /** @description HMAC-SHA256 key of webhook channels. */
            signingKeySecretRef?: components["schemas"]["SecretKeySelector"];
        };
        NotificationsSpec: {
            onFailure?: boolean;
            onPartial?: boolean;
            onSuccess?: boolean;
            onSLAExceeded?: boolean;
            onRegression?: boolean;
            channels: components["schemas"]["NotificationChannel"][];
        };
        /** @description spec.logCollection; an absent field takes its default (domain/test-spec/log-collection-input.ts). */
        LogCollectionSpec: {
            /**
             * Format: double
             * @description Last lines per container log, 1–1000 (default 100).
             */
            lines?: number;
            /** @description failing (default) or all. */
            containers?: components["schemas"]["LogContainers"];
            /** @description Also init containers (default true). */
            initContainers?: boolean;
            /** @description Also the previous instance of a restarted container (default true). */
            previous?: boolean;
            /** @description Keep the Warning events (default true). */
            events?: boolean;
        };
        RestoreTestSpec: {
            provider: components["schemas"]["Provider"];
            backupSource: {
                /** @description Restore only objects of these resource types (absent: every type). */
                includedResources?: components["schemas"]["ResourceTypeRef"][];
                /** @description Restore only the objects whose labels match (absent: every object). */
                labelSelector?: components["schemas"]["LabelSelector"];
                /** @description Namespace of the provider's own objects (e.g. Velero's); default from server config. */
                providerNamespace?: string;
                namespaces: {
                    name: string;
                }[];
                /**
                 * @description How "latest" is resolved (issue 32): absent or strategy latest = the newest restorable
                 *     backup; randomWithin = a seeded draw among those completed within `within` before the run
                 *     (domain/run/backup-sampling.ts).
                 */
                select?: {
                    within?: string;
                    strategy: components["schemas"]["BackupSelectStrategy"];
                };
                /** @description A backup name, or "latest" (default) = newest completed backup covering the sources. */
                backupName?: string;
            };
            schedule: {
                /**
                 * @description Also (or only) run when the backup source completes a new backup (issue 32,
                 *     domain/run/backup-trigger.ts): every `everyNth` new backup (default 1 = each one).
                 */
                onBackup?: {
                    /**
                     * Format: int32
                     * @description Run on every Nth new backup (default 1).
                     */
                    everyNth?: number;
                };
                suspend?: boolean;
                timezone?: string;
                /** @description Absent when the test runs only on new backups (onBackup); one of the two is required. */
                cron?: string;
            };
            sandbox?: {
                limitRange?: {
                    limits: components["schemas"]["Record_string.unknown_"][];
                };
                resourceQuota?: {
                    hard: components["schemas"]["Record_string.string_"];
                };
                networkIsolation?: components["schemas"]["NetworkIsolation"];
                ttl?: string;
                namespacePrefix?: string;
            };
            sla?: {
                alertOnExceed?: boolean;
                /**
                 * @description RPO target (duration string): the most data a restore may lose, measured by a freshness
                 *     check as the restore request time minus the newest restored data (issue 27).
                 */
                maxRPO?: string;
                maxRTO?: string;
            };
            /** @description Name of a HealthCheckPolicy in the test's namespace. */
            healthCheckPolicy?: string;
            healthChecks?: {
                checks: components["schemas"]["HealthCheck"][];
            };
            /** @description How the backup is changed on its way into the sandbox (docs/restore-transforms.md). */
            restore?: components["schemas"]["RestoreSpec"];
            /** Format: double */
            historyLimit?: number;
            /** @description Replaces the server's default notifications for this test (issue 16). */
            notifications?: components["schemas"]["NotificationsSpec"];
            /** @description What a failed or partial run's diagnosis keeps of the sandbox's logs (issue 30). */
            logCollection?: components["schemas"]["LogCollectionSpec"];
        };
        /** @description A drafted RestoreTest, as `kubectl create -f` takes it. */
        DraftedRestoreTest: {
            apiVersion: string;
            kind: string;
            metadata: {
                /** @description rehearsal.dev/generated-from, and rehearsal.dev/generated-todo when the user must complete it. */
                annotations: components["schemas"]["Record_string.string_"];
                namespace: string;
                name: string;
            };
            spec: components["schemas"]["RestoreTestSpec"];
        };
        TestDraftView: {
            /** @description The source namespace the test restores. */
            namespace: string;
            test: components["schemas"]["DraftedRestoreTest"];
            /** @description How the draft was derived and what was left out, one sentence each. */
            notes: string[];
            /** @description What the user must complete before the test can pass; empty when nothing. */
            todo: string[];
            /** @description The test as a YAML document, notes and todo as comments above it (only with yaml=true). */
            yaml?: string;
        };
        /** @enum {string} */
        SkipReason: "forbidden" | "not-backed-up" | "unreadable";
        SkippedNamespace: {
            namespace: string;
            /** @description forbidden: the caller may not read its workloads; not-backed-up: no backup covers it; unreadable: the server could not list it. */
            reason: components["schemas"]["SkipReason"];
            message: string;
            /** @description The permissions the caller lacks (forbidden only). */
            missingPermissions?: components["schemas"]["PermissionDescriptor"][];
        };
        TestDraftsResponse: {
            generatedAt: string;
            /** @description The namespace the drafted tests would live in. */
            testNamespace: string;
            drafts: components["schemas"]["TestDraftView"][];
            skipped: components["schemas"]["SkippedNamespace"][];
        };
        ScheduleInfo: {
            name: string;
            cron: string;
            namespaces: string[];
            lastBackup: string;
        };
        /**
         * @description What the server makes of a sandbox namespace (a namespace carrying the reserved label
         *     rehearsal.dev/managed-by=rehearsal):
         *     - in-use: the test's current run uses it;
         *     - kept: a finished run's sandbox, kept for inspection until expiresAt;
         *     - expired: a finished run's sandbox past expiresAt (the janitor removes it at its next sweep);
         *     - orphaned: its RestoreTest was deleted (or deleted and created again); the janitor removes it
         *       at expiresAt, an administrator may remove it at once;
         *     - unrecorded: its test exists, but neither the current run nor the run's report records it;
         *     - unrecognised: its labels do not name a test and run, or its name is not their sandbox name;
         *     - deleting: already being deleted.
         *     Only orphaned sandboxes are removed on request; the server never deletes unrecorded or
         *     unrecognised namespaces (decision 0009).
         * @enum {string}
         */
        SandboxState: "in-use" | "kept" | "expired" | "orphaned" | "unrecorded" | "unrecognised" | "deleting";
        /**
         * @description A sandbox namespace and what the server makes of it.
         * @example {
         *       "name": "rehearsal-payments-x7k2p",
         *       "uid": "0b6f2c4e-8a1d-4c3e-9f7a-2d5b6e8c1a90",
         *       "test": "payments",
         *       "testNamespace": "team-a",
         *       "run": "x7k2p",
         *       "state": "orphaned",
         *       "orphaned": true,
         *       "createdAt": "2026-11-28T07:00:00.000Z",
         *       "expiresAt": "2026-11-28T08:00:00.000Z",
         *       "message": "its test team-a/payments was deleted; kept until its expiry at 2026-11-28T08:00:00.000Z"
         *     }
         */
        SandboxInfo: {
            /** @description The namespace's name. */
            name: string;
            /** @description The namespace's UID: pass it to removeOrphanedSandbox to remove exactly this namespace. */
            uid: string;
            /** @description The RestoreTest its labels name ("" when the label is missing). */
            test: string;
            /** @description That test's namespace ("" when the label is missing). */
            testNamespace: string;
            /** @description The run its labels name ("" when the label is missing). */
            run: string;
            state: components["schemas"]["SandboxState"];
            /** @description Its test is gone: an administrator may remove it now (removeOrphanedSandbox). */
            orphaned: boolean;
            /** @description When the namespace was created (RFC 3339 UTC). */
            createdAt?: string;
            /** @description When the janitor may remove it (RFC 3339 UTC); absent when it has no readable expiry. */
            expiresAt?: string;
            /** @description Why it is in that state, for a human. */
            message: string;
        };
        /** @enum {string} */
        HintCode: "image-pull-secret-missing" | "image-pull-failed" | "crash-loop" | "oom-killed" | "secret-missing" | "configmap-missing" | "unschedulable-resources" | "unschedulable-placement" | "storage-class-missing" | "pvc-pending" | "quota-exceeded" | "storage-quota-exceeded" | "pod-security-refused" | "externalname-unrestored" | "externalname-to-source";
        Hint: {
            code: components["schemas"]["HintCode"];
            title: string;
            remediation: string;
            /** @description The objects that show it, e.g. Pod/rehearsal-shop-x1/web-1. */
            objects: string[];
        };
        ObservedContainer: {
            name: string;
            ready: boolean;
            /** Format: int32 */
            restartCount: number;
            /** @enum {string} */
            state: "waiting" | "running" | "terminated" | "unknown";
            reason?: string;
            message?: string;
            /** Format: int32 */
            exitCode?: number;
            /** @description Reason of the previous termination (OOMKilled shows here while the container restarts). */
            lastTerminationReason?: string;
        };
        ObservedPod: {
            namespace: string;
            name: string;
            phase: string;
            ready: boolean;
            /** @description The PodScheduled condition when it is not True (the scheduler's reason and message). */
            unscheduled?: {
                message: string;
                reason: string;
            };
            containers: components["schemas"]["ObservedContainer"][];
            imagePullSecrets: string[];
        };
        ObservedEvent: {
            namespace: string;
            reason: string;
            message: string;
            /** @description Kind/name of the object, e.g. Pod/web-1. */
            object: string;
            /** Format: int32 */
            count: number;
            lastSeen: string;
        };
        ObservedClaim: {
            namespace: string;
            name: string;
            phase: string;
            storageClass?: string;
        };
        ContainerLog: {
            namespace: string;
            pod: string;
            container: string;
            /** @description An init container's log (issue 30). */
            init?: boolean;
            /** @description The previous instance's log of a container that restarted (issue 30). */
            previous?: boolean;
            /** @description Newest last; scrubbed of secrets (secret-scrub.ts) before they are stored. */
            lines: string[];
            /** @description True when older lines were left out to stay within the size bounds (log-bounds.ts). */
            truncated?: boolean;
            /**
             * Format: int32
             * @description How many older lines were left out; readers show it as a marker before the lines.
             */
            omittedLines?: number;
        };
        LogCollectionSettings: {
            /**
             * Format: double
             * @description Last lines per container log.
             */
            lines: number;
            containers: components["schemas"]["LogContainers"];
            initContainers: boolean;
            previous: boolean;
            events: boolean;
        };
        RunDiagnosis: {
            test: {
                namespace: string;
                name: string;
            };
            runId: string;
            /** @description The RestoreReport the diagnosis belongs to. */
            report: string;
            result: string;
            collectedAt: string;
            sandboxes: string[];
            hints: components["schemas"]["Hint"][];
            pods: components["schemas"]["ObservedPod"][];
            events: components["schemas"]["ObservedEvent"][];
            claims: components["schemas"]["ObservedClaim"][];
            logs: components["schemas"]["ContainerLog"][];
            logsNote?: string;
            /** @description The test's spec.logCollection the logs were collected with, defaults applied (issue 30). */
            logCollection?: components["schemas"]["LogCollectionSettings"];
            /** @description True when parts were left out to stay within the size bound. */
            truncated: boolean;
            /**
             * @description True when the restored application's own text (log lines, event and container messages) was
             *     left out: the caller may not get secrets in every source namespace.
             */
            redacted?: boolean;
        };
        /** @enum {string} */
        NotificationEvent: "failed" | "partial" | "succeeded" | "slaexceeded" | "regressed";
        /** @description The JSON body of a webhook notification, and the `data` of a CloudEvent. */
        RunNotification: {
            /** @description Stable per run and event (the same on every channel and every retry): receivers dedupe on it. */
            id: string;
            event: components["schemas"]["NotificationEvent"];
            /** @description The CloudEvents type, e.g. dev.rehearsal.run.failed. */
            type: string;
            /** @description One line for humans. */
            summary: string;
            test: {
                namespace: string;
                name: string;
            };
            run: {
                /** @description Checks with status fail or error. */
                failedChecks: {
                    message: string;
                    status: string;
                    kind: string;
                    name: string;
                }[];
                failure?: {
                    message: string;
                    reason: string;
                };
                rto: {
                    withinSLA?: boolean;
                    target?: string;
                    measured?: string;
                };
                backup: string;
                sandboxNamespaces: string[];
                sourceNamespaces: string[];
                /**
                 * Format: int32
                 * @description Score of the previous run of the test; absent for the first run.
                 */
                previousScore?: number;
                /** Format: int32 */
                score: number;
                /** @description pass, partial or fail. */
                result: string;
                completedAt: string;
                startedAt: string;
                trigger: string;
                /** @description RestoreReport name (in the test's namespace). */
                report: string;
                id: string;
            };
        };
        /**
         * @description A run's event, as in the CloudEvents type dev.rehearsal.run.<event>.
         * @enum {string}
         */
        RunEvent: "failed" | "partial" | "succeeded" | "slaexceeded" | "regressed";
        OwnerReference: {
            apiVersion: string;
            kind: string;
            name: string;
            uid: string;
            controller?: boolean;
            blockOwnerDeletion?: boolean;
        };
        ObjectMeta: {
            name: string;
            namespace?: string;
            uid?: string;
            resourceVersion?: string;
            /** Format: int32 */
            generation?: number;
            creationTimestamp?: string;
            deletionTimestamp?: string;
            labels?: components["schemas"]["Record_string.string_"];
            annotations?: components["schemas"]["Record_string.string_"];
            ownerReferences?: components["schemas"]["OwnerReference"][];
            finalizers?: string[];
        };
        /**
         * @description schedule: a cron instant; manual: a trigger request; backup: a new backup of the source (issue 32).
         * @enum {string}
         */
        RunTrigger: "schedule" | "manual" | "backup";
        /**
         * @description How a randomWithin test chose its backup (issue 32, domain/run/backup-sampling.ts): in the run
         *     (status.currentRun.backup.selection) and in the report (spec.backup.selection).
         */
        BackupSelectionRecord: {
            /** @enum {string} */
            strategy: "randomWithin";
            /** @description The window as configured (duration string). */
            within: string;
            /** @description The window: [windowStart, windowEnd], windowEnd = the run's start. */
            windowStart: string;
            windowEnd: string;
            /** @description 8 hex digits: FNV-1a of "<test uid>/<run id>" with murmur3's final mix (domain/run/backup-sampling.ts). */
            seed: string;
            /**
             * Format: int32
             * @description Backups in the window.
             */
            candidates: number;
            /**
             * Format: int32
             * @description 1-based position of the chosen backup among the candidates, newest first; absent on fallback.
             */
            chosen?: number;
            /** @description true when the window held no candidate and the newest restorable backup was used instead. */
            fallback?: boolean;
            /** @description One sentence: what was chosen and why. */
            reason: string;
        };
        /** @enum {string} */
        RunResult: "pass" | "partial" | "fail";
        /** @enum {string} */
        ScoreLevelName: "restoreIntegrity" | "completeness" | "podStartup" | "healthChecks" | "crossNamespace" | "rtoWithinSLA";
        ScoreLevel: {
            name: components["schemas"]["ScoreLevelName"];
            /**
             * Format: int32
             * @description Points earned (partial credit rounded down).
             */
            points: number;
            /** Format: int32 */
            maxPoints: number;
            /** @description false when the level could not be evaluated (e.g. the restore failed). */
            tested: boolean;
            detail: string;
        };
        /** @enum {string} */
        CheckStatus: "pass" | "fail" | "skip" | "error";
        CheckResult: {
            name: string;
            kind: components["schemas"]["CheckKind"];
            status: components["schemas"]["CheckStatus"];
            message: string;
            /** @description Duration string. */
            duration: string;
            /** @description A freshness check's finding: the newest data in the restored copy (RFC 3339). */
            newestData?: string;
        };
        KindCompleteness: {
            kind: string;
            /** Format: int32 */
            backedUp: number;
            /** Format: int32 */
            restored: number;
        };
        /** @description A reference from a restored object to a Service in another namespace (decision 0004). */
        DependencyEntry: {
            /** @description `<Kind>/<source namespace>/<name>` of the restored object holding the reference. */
            from: string;
            /** @description `<service>.<namespace>` as referenced. */
            to: string;
            /** @enum {string} */
            status: "restored" | "reachable" | "missing" | "unreachable" | "production";
            message?: string;
        };
        /** @description What a restore transform did to one object of the backup (docs/restore-transforms.md). */
        AppliedTransform: {
            /** @description A default transform's id, `exclude` or `patch/<name>` for the test's own. */
            transform: string;
            kind: string;
            /** @description Source namespace of the object. */
            namespace: string;
            /** @description Object name; "*" when the tool does not say which objects it changed (every one it matched). */
            name: string;
            /** @description What changed, e.g. "not restored" or "spec.suspend set to true". */
            change: string;
        };
        /** @description The transforms of a run: what each changed, and the defaults the test removed. */
        RestoreTransformsReport: {
            /** @description At most 25, sorted by transform, kind, namespace, name. */
            applied: components["schemas"]["AppliedTransform"][];
            /**
             * Format: int32
             * @description Entries left out beyond the 25.
             */
            more?: number;
            removedDefaults?: components["schemas"]["DefaultTransformId"][];
        };
        /** @description The Pod Security profile each sandbox enforced (never looser than its source). */
        PodSecurityReport: {
            /** @description The floor: the test's spec.restore.podSecurity, else the installation's. */
            floor: components["schemas"]["PodSecurityLevel"];
            namespaces: {
                /** @description What the sandbox enforced (its label as read at the end of the run). */
                level: components["schemas"]["PodSecurityLevel"];
                /** @description The source namespace's pod-security.kubernetes.io/enforce; absent when it has none. */
                sourceLevel?: components["schemas"]["PodSecurityLevel"];
                source: string;
            }[];
        };
        /**
         * @description How a volume's data came back (issue 27): `file-system` (Velero's node agent, file by file into
         *     the restored Pod's volume), `csi-data-mover` (Velero's CSI data mover, into a claim),
         *     `csi-snapshot` (a claim provisioned from a CSI snapshot kept in the cluster: the CSI driver
         *     fills it), or `provider-data-mover` (the backup provider's own data mover writes a whole-volume
         *     image from its backup target into a claim: Trilio).
         * @enum {string}
         */
        VolumeRestoreMethod: "file-system" | "csi-data-mover" | "csi-snapshot" | "provider-data-mover";
        /**
         * @description One volume whose data the restore brought back, as the backup tool reports it (Velero: a
         *     PodVolumeRestore of its node agent, or a DataDownload of its CSI data mover; Trilio: a
         *     dataSnapshot of its Restore's status, decision 0012).
         */
        VolumeRestoreReport: {
            /** @description The sandbox namespace the data went into. */
            namespace: string;
            /** @description The restored Pod and its volume (file-system restores), or the claim (the data movers). */
            pod?: string;
            volume?: string;
            claim?: string;
            method: components["schemas"]["VolumeRestoreMethod"];
            /**
             * @description The tool's own phase word (Velero: New, InProgress, Completed, Failed, Canceled; Trilio: the
             *     status of the claim's DataRestore condition, InProgress, Completed, Failed, Error, Skipped, …).
             */
            phase: string;
            /** @description The data is in the volume (the tool says so). */
            dataRestored: boolean;
            /**
             * Format: int32
             * @description Bytes restored (the tool's progress counter).
             */
            bytes?: number;
            /**
             * Format: int32
             * @description From the tool's start of this volume to its completion.
             */
            durationSeconds?: number;
            /** @description The tool's message, when it gave one (a failed volume's reason). */
            message?: string;
        };
        ResultCap: {
            check: string;
            critical: boolean;
            /** @enum {string} */
            result: "partial" | "fail";
        };
        RestoreReportSpec: {
            testRef: {
                uid?: string;
                namespace: string;
                name: string;
            };
            runId: string;
            trigger: components["schemas"]["RunTrigger"];
            scheduledAt: string;
            startedAt: string;
            completedAt: string;
            sourceNamespaces: string[];
            backup: {
                /** @description How the backup was drawn (strategy randomWithin only); absent for latest or a named backup. */
                selection?: components["schemas"]["BackupSelectionRecord"];
                /** @description Run start - backup completion, duration string. */
                age?: string;
                completedAt?: string;
                name: string;
                provider: components["schemas"]["Provider"];
            };
            sandboxNamespaces: string[];
            restore?: {
                /** @description The part of the backup restored (issue 32), e.g. "labels app=a; types deployments.apps"; absent = everything. */
                subset?: string;
                /** Format: int32 */
                itemsRestored?: number;
                /** Format: int32 */
                errors: number;
                /** Format: int32 */
                warnings: number;
                phase: string;
                namespace: string;
                name: string;
            };
            /** Format: int32 */
            score: number;
            result: components["schemas"]["RunResult"];
            levels: components["schemas"]["ScoreLevel"][];
            checks: components["schemas"]["CheckResult"][];
            /**
             * @description The checks in one line (issue 30), e.g. "4/5 passed; failed: orders-rows", at most 160
             *     characters ("+N more" for the failed names that do not fit): what kubectl shows of the checks.
             *     Signed like every spec field. Absent on reports written before issue 30.
             */
            checkSummary?: string;
            completeness: components["schemas"]["KindCompleteness"][];
            /** @description Cross-namespace references found in the restored objects; failed ones first, at most 32. */
            dependencies?: components["schemas"]["DependencyEntry"][];
            /** @description What the restore transforms changed; absent when no restore was requested. */
            transforms?: components["schemas"]["RestoreTransformsReport"];
            /** @description The sandboxes' Pod Security profiles; absent when no sandbox was created. */
            podSecurity?: components["schemas"]["PodSecurityReport"];
            /**
             * @description The volumes whose data the restore brought back, failed ones first, at most 20; absent when the tool restored no
             *     volume data (or cannot say).
             */
            volumes?: components["schemas"]["VolumeRestoreReport"][];
            /**
             * @description The measured RPO (issue 27): the restore request time minus the newest data a freshness check
             *     found in the restored copy. Absent without a freshness check that found a time.
             */
            rpo?: {
                withinSLA?: boolean;
                target?: string;
                /** Format: int32 */
                measuredSeconds: number;
                measured: string;
                newestData: string;
                /** @description The freshness check that measured it. */
                check: string;
            };
            rto: {
                phases: {
                    checksCompletedAt?: string;
                    podsReadyAt?: string;
                    restoreCompletedAt?: string;
                    restoreRequestedAt?: string;
                };
                withinSLA?: boolean;
                target?: string;
                /** Format: double */
                measuredSeconds?: number;
                measured?: string;
            };
            /**
             * @description Until when the sandboxes of a run that did not pass are kept for inspection (start + ttl,
             *     decision 0012); absent when the run passed (deleted at once) or had no sandbox.
             */
            sandboxExpiresAt?: string;
            /** @description A failed check lowered the result the score alone gives (decision 0004): which one, and to what. */
            resultCap?: components["schemas"]["ResultCap"];
            failure?: {
                message: string;
                reason: string;
            };
            /** @description Tamper evidence (issue: signed evidence). Absent until signing is enabled. */
            evidence?: {
                /** @enum {string} */
                canonicalization: "RFC8785";
                /** @enum {string} */
                algorithm: "Ed25519";
                keyId: string;
                signature: string;
                /**
                 * Format: int32
                 * @description Position in the test's chain (1 = first signed with a sequence); part of the digest.
                 */
                sequence?: number;
                previousDigest?: string;
                digest: string;
            };
        };
        /** @description A RestoreReport in its full resource representation (as `kubectl get restorereport -o json`). */
        RestoreReportResource: {
            /** @description rehearsal.dev/v1alpha1 */
            apiVersion: string;
            /** @enum {string} */
            kind: "RestoreReport";
            metadata: components["schemas"]["ObjectMeta"];
            spec: components["schemas"]["RestoreReportSpec"];
        };
        /** @enum {string} */
        FrameworkId: "soc2" | "iso27001" | "hipaa" | "dora" | "pcidss";
        LicenseResponse: {
            tier: string;
            expiresAt: string | null;
            trialEndsAt: string | null;
            isExpired: boolean;
            isTrialing: boolean;
            /** Format: int32 */
            trialDaysLeft: number;
            features: string[];
        };
        HealthResponse: {
            /**
             * @description ok: caches loaded and serving; starting: still loading (read endpoints answer 503).
             * @enum {string}
             */
            status: "ok" | "starting";
        };
        /**
         * @description A public key that verifies Rehearsal evidence (RestoreReport spec.evidence and PDF attestations).
         *     The same keys are published in the ConfigMap rehearsal-evidence-public-keys.
         * @example {
         *       "keyId": "3f2a9c0b7d1e4f56",
         *       "algorithm": "Ed25519",
         *       "publicKeyPem": "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA...\n-----END PUBLIC KEY-----\n",
         *       "createdAt": "2026-03-01T08:00:00.000Z",
         *       "status": "current"
         *     }
         */
        EvidencePublicKey: {
            /** @description First 16 hex characters of SHA-256 over the key's SPKI DER encoding (spec.evidence.keyId). */
            keyId: string;
            /** @enum {string} */
            algorithm: "Ed25519";
            /** @description SPKI PEM. */
            publicKeyPem: string;
            /** @description When the key was created (RFC 3339 UTC). */
            createdAt: string;
            /**
             * @description current: signs new evidence; retired: replaced by a rotation, still verifies older evidence.
             * @enum {string}
             */
            status: "current" | "retired";
            /** @description When the key was retired (retired keys only). */
            retiredAt?: string;
        };
        Summary: {
            /** Format: int32 */
            averageScore: number;
            /** Format: int32 */
            totalTests: number;
            /** Format: int32 */
            testsLastNight: number;
            /** Format: int32 */
            totalFailures: number;
            /** Format: int32 */
            totalPartial: number;
            averageRTO: string;
            /** Format: int32 */
            namespacesCovered: number;
            /**
             * Format: int32
             * @description Namespaces the backup tool backs up that no passing restore test covers within their window
             *     (GET /api/v1/coverage lists them); absent while the backup tool has not been read.
             */
            namespacesBackedUpUntested?: number;
        };
        DailySummary: {
            /** @description YYYY-MM-DD (UTC). */
            date: string;
            /** Format: int32 */
            score: number;
            /** Format: int32 */
            tests: number;
            /** Format: int32 */
            failures: number;
        };
        Alert: {
            timestamp: string;
            testName: string;
            namespace: string;
            /** Format: int32 */
            score: number;
            /** Format: int32 */
            prevScore: number;
            result: string;
            message: string;
            /** @description preflight: a failed pre-flight check of the test's newest backup (no run; issue 32); absent for a run's alert. */
            kind?: string;
        };
        UpcomingTest: {
            name: string;
            namespace: string;
            /**
             * @description When the next run is (or was) due; for a scheduled run waiting for a slot, its cron instant.
             *     Empty for a test that runs on new backups only (onNextBackup).
             */
            nextRunAt: string;
            /**
             * @description True: the test (also) runs when its source's next backup completes (issue 32); with an empty
             *     nextRunAt, that is its only next run ("on next backup"). Such entries come after the timed ones.
             */
            onNextBackup?: boolean;
            /** Format: int32 */
            lastScore: number;
            /**
             * @description True: the run due at nextRunAt has not started more than a minute after its time (the engine
             *     was down, or the run still waits in the queue). Overdue entries come first. Always sent by
             *     this server; optional for clients of older servers.
             */
            overdue?: boolean;
        };
        /** @enum {string} */
        CoverageStatus: "tested" | "stale" | "untested";
        NamespaceCoverage: {
            namespace: string;
            /** @description tested: a pass within the window; stale: the newest pass is older; untested: never a pass. */
            status: components["schemas"]["CoverageStatus"];
            /** @description What backs it up, e.g. "Schedule/daily", "Backup/manual-1" (Velero), "Policy/kasten-io/daily", "RestorePoint/…" (Kasten), "BackupPlan/shop-plan" (Trilio). */
            backedUpBy: string[];
            /** @description Completion time of its newest backup; empty when unknown. */
            lastBackupAt: string;
            /** @description How old the newest passing run may be, e.g. 24h0m0s. */
            window: string;
            /** @description RestoreTests ("namespace/name") that restore it. */
            tests: string[];
            /** @description Completion time of the newest passing run that restored it; empty when none. */
            lastPassedAt: string;
        };
        CoverageResponse: {
            generatedAt: string;
            /**
             * Format: int32
             * @description Namespaces backed up (by a schedule or a completed backup).
             */
            backedUp: number;
            /** Format: int32 */
            tested: number;
            /**
             * Format: int32
             * @description Namespaces with status untested or stale.
             */
            untested: number;
            namespaces: components["schemas"]["NamespaceCoverage"][];
        };
        /** @enum {string} */
        ControlStatus: "satisfied" | "at_risk" | "not_tested";
        ComplianceControl: {
            id: string;
            title: string;
            status: components["schemas"]["ControlStatus"];
            evidence: string;
        };
        ComplianceResponse: {
            framework: string;
            /** Format: int32 */
            period: number;
            generatedAt: string;
            /** Format: int32 */
            totalTests: number;
            /** Format: double */
            passRate: number;
            /** Format: int32 */
            avgScore: number;
            /** Format: double */
            slaCompliance: number;
            /** Format: int32 */
            namespacesCovered: number;
            controls: components["schemas"]["ComplianceControl"][];
        };
        TestPassRate: {
            name: string;
            namespace: string;
            /** Format: double */
            passRate: number;
            /** Format: int32 */
            runs: number;
        };
        ComplianceOverview: {
            /** Format: int32 */
            period: number;
            generatedAt: string;
            frameworks: components["schemas"]["ComplianceResponse"][];
            tests: components["schemas"]["TestPassRate"][];
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type SchemaFieldProblem = components['schemas']['FieldProblem'];
export type SchemaPermissionDescriptor = components['schemas']['PermissionDescriptor'];
export type SchemaProblemDetails = components['schemas']['ProblemDetails'];
export type SchemaBackupSelectStrategy = components['schemas']['BackupSelectStrategy'];
export type SchemaBackupSelectInput = components['schemas']['BackupSelectInput'];
export type SchemaLabelValue = components['schemas']['LabelValue'];
export type SchemaLabelSelectorRequirementInput = components['schemas']['LabelSelectorRequirementInput'];
export type SchemaLabelSelectorInput = components['schemas']['LabelSelectorInput'];
export type SchemaResourceTypeInput = components['schemas']['ResourceTypeInput'];
export type SchemaRestorePatchTarget = components['schemas']['RestorePatchTarget'];
export type SchemaRestorePatchCondition = components['schemas']['RestorePatchCondition'];
export type SchemaRestorePatchOperationInput = components['schemas']['RestorePatchOperationInput'];
export type SchemaRestorePatchInput = components['schemas']['RestorePatchInput'];
export type SchemaDefaultTransformId = components['schemas']['DefaultTransformId'];
export type SchemaPodSecurityLevel = components['schemas']['PodSecurityLevel'];
export type SchemaRestoreInput = components['schemas']['RestoreInput'];
export type SchemaLogContainers = components['schemas']['LogContainers'];
export type SchemaLogCollectionResponse = components['schemas']['LogCollectionResponse'];
export type SchemaPreflightProblemResponse = components['schemas']['PreflightProblemResponse'];
export type SchemaPreflightResponse = components['schemas']['PreflightResponse'];
export type SchemaTestResponse = components['schemas']['TestResponse'];
export type SchemaProvider = components['schemas']['Provider'];
export type SchemaNamespaceName = components['schemas']['NamespaceName'];
export type SchemaLogCollectionInput = components['schemas']['LogCollectionInput'];
export type SchemaCreateTestInput = components['schemas']['CreateTestInput'];
export type SchemaRecordStringString = components['schemas']['Record_string.string_'];
export type SchemaLabelSelectorOperator = components['schemas']['LabelSelectorOperator'];
export type SchemaLabelSelector = components['schemas']['LabelSelector'];
export type SchemaResourceTypeRef = components['schemas']['ResourceTypeRef'];
export type SchemaNetworkIsolation = components['schemas']['NetworkIsolation'];
export type SchemaRecordStringUnknown = components['schemas']['Record_string.unknown_'];
export type SchemaCheckKind = components['schemas']['CheckKind'];
export type SchemaPodsReadyCheck = components['schemas']['PodsReadyCheck'];
export type SchemaHttpGetCheck = components['schemas']['HttpGetCheck'];
export type SchemaTcpSocketCheck = components['schemas']['TcpSocketCheck'];
export type SchemaSqlQueryCheck = components['schemas']['SqlQueryCheck'];
export type SchemaResourceExistsCheck = components['schemas']['ResourceExistsCheck'];
export type SchemaExecCheck = components['schemas']['ExecCheck'];
export type SchemaFileFreshnessSource = components['schemas']['FileFreshnessSource'];
export type SchemaFileCheck = components['schemas']['FileCheck'];
export type SchemaHealthCheck = components['schemas']['HealthCheck'];
export type SchemaPatchedObjects = components['schemas']['PatchedObjects'];
export type SchemaRestorePatchOperation = components['schemas']['RestorePatchOperation'];
export type SchemaRestorePatch = components['schemas']['RestorePatch'];
export type SchemaRestoreSpec = components['schemas']['RestoreSpec'];
export type SchemaNotificationChannelType = components['schemas']['NotificationChannelType'];
export type SchemaSecretKeySelector = components['schemas']['SecretKeySelector'];
export type SchemaNotificationChannel = components['schemas']['NotificationChannel'];
export type SchemaNotificationsSpec = components['schemas']['NotificationsSpec'];
export type SchemaLogCollectionSpec = components['schemas']['LogCollectionSpec'];
export type SchemaRestoreTestSpec = components['schemas']['RestoreTestSpec'];
export type SchemaDraftedRestoreTest = components['schemas']['DraftedRestoreTest'];
export type SchemaTestDraftView = components['schemas']['TestDraftView'];
export type SchemaSkipReason = components['schemas']['SkipReason'];
export type SchemaSkippedNamespace = components['schemas']['SkippedNamespace'];
export type SchemaTestDraftsResponse = components['schemas']['TestDraftsResponse'];
export type SchemaScheduleInfo = components['schemas']['ScheduleInfo'];
export type SchemaSandboxState = components['schemas']['SandboxState'];
export type SchemaSandboxInfo = components['schemas']['SandboxInfo'];
export type SchemaHintCode = components['schemas']['HintCode'];
export type SchemaHint = components['schemas']['Hint'];
export type SchemaObservedContainer = components['schemas']['ObservedContainer'];
export type SchemaObservedPod = components['schemas']['ObservedPod'];
export type SchemaObservedEvent = components['schemas']['ObservedEvent'];
export type SchemaObservedClaim = components['schemas']['ObservedClaim'];
export type SchemaContainerLog = components['schemas']['ContainerLog'];
export type SchemaLogCollectionSettings = components['schemas']['LogCollectionSettings'];
export type SchemaRunDiagnosis = components['schemas']['RunDiagnosis'];
export type SchemaNotificationEvent = components['schemas']['NotificationEvent'];
export type SchemaRunNotification = components['schemas']['RunNotification'];
export type SchemaRunEvent = components['schemas']['RunEvent'];
export type SchemaOwnerReference = components['schemas']['OwnerReference'];
export type SchemaObjectMeta = components['schemas']['ObjectMeta'];
export type SchemaRunTrigger = components['schemas']['RunTrigger'];
export type SchemaBackupSelectionRecord = components['schemas']['BackupSelectionRecord'];
export type SchemaRunResult = components['schemas']['RunResult'];
export type SchemaScoreLevelName = components['schemas']['ScoreLevelName'];
export type SchemaScoreLevel = components['schemas']['ScoreLevel'];
export type SchemaCheckStatus = components['schemas']['CheckStatus'];
export type SchemaCheckResult = components['schemas']['CheckResult'];
export type SchemaKindCompleteness = components['schemas']['KindCompleteness'];
export type SchemaDependencyEntry = components['schemas']['DependencyEntry'];
export type SchemaAppliedTransform = components['schemas']['AppliedTransform'];
export type SchemaRestoreTransformsReport = components['schemas']['RestoreTransformsReport'];
export type SchemaPodSecurityReport = components['schemas']['PodSecurityReport'];
export type SchemaVolumeRestoreMethod = components['schemas']['VolumeRestoreMethod'];
export type SchemaVolumeRestoreReport = components['schemas']['VolumeRestoreReport'];
export type SchemaResultCap = components['schemas']['ResultCap'];
export type SchemaRestoreReportSpec = components['schemas']['RestoreReportSpec'];
export type SchemaRestoreReportResource = components['schemas']['RestoreReportResource'];
export type SchemaFrameworkId = components['schemas']['FrameworkId'];
export type SchemaLicenseResponse = components['schemas']['LicenseResponse'];
export type SchemaHealthResponse = components['schemas']['HealthResponse'];
export type SchemaEvidencePublicKey = components['schemas']['EvidencePublicKey'];
export type SchemaSummary = components['schemas']['Summary'];
export type SchemaDailySummary = components['schemas']['DailySummary'];
export type SchemaAlert = components['schemas']['Alert'];
export type SchemaUpcomingTest = components['schemas']['UpcomingTest'];
export type SchemaCoverageStatus = components['schemas']['CoverageStatus'];
export type SchemaNamespaceCoverage = components['schemas']['NamespaceCoverage'];
export type SchemaCoverageResponse = components['schemas']['CoverageResponse'];
export type SchemaControlStatus = components['schemas']['ControlStatus'];
export type SchemaComplianceControl = components['schemas']['ComplianceControl'];
export type SchemaComplianceResponse = components['schemas']['ComplianceResponse'];
export type SchemaTestPassRate = components['schemas']['TestPassRate'];
export type SchemaComplianceOverview = components['schemas']['ComplianceOverview'];
export type $defs = Record<string, never>;
export interface operations {
    listTests: {
        parameters: {
            query?: {
                /** @description Only this namespace (403 when the caller may not list there). Without it: every namespace the caller may list; the headers Rehearsal-Omitted-Namespaces and Rehearsal-Omitted-Namespace-Names report those left out. */
                namespace?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description RestoreTests */
            200: {
                headers: {
                    /** @description Those namespaces, comma-separated; only to callers who may list namespaces cluster-wide. */
                    "Rehearsal-Omitted-Namespace-Names"?: string;
                    /** @description How many namespaces holding Rehearsal objects the answer leaves out (the caller may not list there); absent when none. */
                    "Rehearsal-Omitted-Namespaces"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TestResponse"][];
                };
            };
            /** @description Not Modified: If-None-Match names the current ETag of this answer */
            304: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description namespace is not an RFC 1123 label */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No bearer token, or the cluster rejected it */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The caller lacks a permission; missingPermissions names it */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Unexpected server error (details are only logged) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Caches still loading (not-ready) or the Kubernetes API unreachable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    createTest: {
        parameters: {
            query?: {
                /** @description Namespace of the new RestoreTest; default: the body's namespace, else the server's. */
                namespace?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateTestInput"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    /** @description Path of the new RestoreTest, e.g. /api/v1/tests/payments?namespace=rehearsal-system */
                    Location: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TestResponse"];
                };
            };
            /** @description Invalid body: every offending field is listed in errors */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No bearer token, or the cluster rejected it */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The caller may not read Secrets in a source namespace, or set an admin-only field */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description A RestoreTest with that name already exists in the namespace */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Body larger than 64 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Unexpected server error (details are only logged) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Caches still loading (not-ready) or the Kubernetes API unreachable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    getTest: {
        parameters: {
            query?: {
                /** @description Namespace of the RestoreTest; default: the server's namespace. */
                namespace?: string;
            };
            header?: never;
            path: {
                /** @description Name of the RestoreTest. */
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ok */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TestResponse"];
                };
            };
            /** @description name or namespace is not an RFC 1123 label */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No bearer token, or the cluster rejected it */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The caller lacks a permission; missingPermissions names it */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No such RestoreTest */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Unexpected server error (details are only logged) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Caches still loading (not-ready) or the Kubernetes API unreachable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    replaceTest: {
        parameters: {
            query?: {
                /** @description Namespace of the RestoreTest; default: the server's namespace. */
                namespace?: string;
            };
            header?: never;
            path: {
                /** @description Name of the RestoreTest. */
                name: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateTestInput"];
            };
        };
        responses: {
            /** @description Ok */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TestResponse"];
                };
            };
            /** @description Invalid body, or a name/namespace that differs from the request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No bearer token, or the cluster rejected it */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The caller lacks a permission; missingPermissions names it */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No such RestoreTest */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The RestoreTest kept changing concurrently; retry */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Body larger than 64 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Unexpected server error (details are only logged) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Caches still loading (not-ready) or the Kubernetes API unreachable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    deleteTest: {
        parameters: {
            query?: {
                /** @description Namespace of the RestoreTest; default: the server's namespace. */
                namespace?: string;
            };
            header?: never;
            path: {
                /** @description Name of the RestoreTest. */
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description name or namespace is not an RFC 1123 label */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No bearer token, or the cluster rejected it */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The caller lacks a permission; missingPermissions names it */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No such RestoreTest */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Unexpected server error (details are only logged) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Caches still loading (not-ready) or the Kubernetes API unreachable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    triggerTest: {
        parameters: {
            query?: {
                /** @description Namespace of the RestoreTest; default: the server's namespace. */
                namespace?: string;
            };
            header?: never;
            path: {
                /** @description Name of the RestoreTest. */
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Triggered */
            200: {
                headers: {
                    /** @description started: the engine took the request (phase Running); pending: not within the wait. */
                    "Rehearsal-Trigger-State": "started" | "pending";
                    /** @description The value written to the rehearsal.dev/trigger-request annotation. */
                    "Rehearsal-Trigger-Request": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TestResponse"];
                };
            };
            /** @description name or namespace is not an RFC 1123 label */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No bearer token, or the cluster rejected it */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The caller lacks a permission; missingPermissions names it */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No such RestoreTest */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description A run is already in progress (or a trigger is pending) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Unexpected server error (details are only logged) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Caches still loading (not-ready) or the Kubernetes API unreachable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    draftTests: {
        parameters: {
            query?: {
                /** @description Namespace the drafted tests would live in; default: the server's namespace. */
                namespace?: string;
                /** @description Source namespaces to draft tests for (repeat the parameter); default: every backed-up namespace without a test. */
                sourceNamespace?: components["schemas"]["NamespaceName"][];
                /** @description Add each draft as a YAML document, its notes as comments. */
                yaml?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ok */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TestDraftsResponse"];
                };
            };
            /** @description A sourceNamespace is not an RFC 1123 label (errors names it, e.g. sourceNamespace[1]), more than 100 are named, or namespace or yaml is malformed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No bearer token, or the cluster rejected it */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The caller lacks a permission; missingPermissions names it */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Unexpected server error (details are only logged) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Caches still loading (not-ready), the backup tool (Velero, Kasten or Trilio) not installed or not reachable (backup-tool-unavailable), or the Kubernetes API unreachable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    createDraftedTest: {
        parameters: {
            query?: {
                /** @description Namespace of the new RestoreTest; default: the server's namespace. */
                namespace?: string;
            };
            header?: never;
            path: {
                /** @description The backed-up namespace the test restores. */
                sourceNamespace: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Created */
            201: {
                headers: {
                    /** @description Path of the new RestoreTest, e.g. /api/v1/tests/shop-restore?namespace=rehearsal-system */
                    Location: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TestResponse"];
                };
            };
            /** @description sourceNamespace or namespace is not an RFC 1123 label, or the test namespace does not exist */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No bearer token, or the cluster rejected it */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The caller lacks a permission; missingPermissions names it */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No backup covers the source namespace */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description A RestoreTest of the drafted name already exists in the namespace */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Unexpected server error (details are only logged) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Caches still loading (not-ready), the backup tool (Velero, Kasten or Trilio) not installed or not reachable (backup-tool-unavailable), or the Kubernetes API unreachable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    listSchedules: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ok */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ScheduleInfo"][];
                };
            };
            /** @description No bearer token, or the cluster rejected it */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The caller lacks a permission; missingPermissions names it */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Unexpected server error (details are only logged) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Velero is not installed or not reachable (backup-tool-unavailable) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    listSandboxes: {
        parameters: {
            query?: {
                /** @description Only sandboxes whose RestoreTest is gone. */
                orphaned?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ok */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SandboxInfo"][];
                };
            };
            /** @description orphaned is not true or false */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No bearer token, or the cluster rejected it */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The caller lacks a permission; missingPermissions names it */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Unexpected server error (details are only logged) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The Kubernetes API is unreachable (kubernetes-unavailable) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    removeOrphanedSandbox: {
        parameters: {
            query?: {
                /** @description The namespace's UID as listSandboxes showed it. */
                uid?: string;
            };
            header?: never;
            path: {
                /** @description Name of the sandbox namespace. */
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Removal started (the namespace is being deleted) */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description name is not an RFC 1123 label, or uid is malformed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No bearer token, or the cluster rejected it */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The caller lacks a permission; missingPermissions names it */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No sandbox namespace of that name */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The sandbox is not orphaned, or its UID is not the one given (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Unexpected server error (details are only logged) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The Kubernetes API is unreachable (kubernetes-unavailable) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    getRunDiagnosis: {
        parameters: {
            query?: {
                /** @description Namespace of the RestoreTest; default: the server's namespace. */
                namespace?: string;
                /** @description Run id; default: the newest run that did not pass. */
                run?: string;
            };
            header?: never;
            path: {
                /** @description Name of the RestoreTest. */
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ok */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RunDiagnosis"];
                };
            };
            /** @description name, namespace or run is malformed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No bearer token, or the cluster rejected it */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The caller lacks a permission; missingPermissions names it */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No such RestoreTest or run, the run passed, or it has no diagnosis */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Unexpected server error (details are only logged) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Caches still loading (not-ready) or the Kubernetes API unreachable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    previewRunNotification: {
        parameters: {
            query?: {
                /** @description The event; default failed. */
                event?: components["schemas"]["RunEvent"];
                /** @description Namespace of the RestoreTest; default: the server's namespace. */
                namespace?: string;
                /** @description Run id; default: the newest run. */
                run?: string;
            };
            header?: never;
            path: {
                /** @description Name of the RestoreTest. */
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ok */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RunNotification"];
                };
            };
            /** @description name, namespace, run or event is malformed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No bearer token, or the cluster rejected it */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The caller lacks a permission; missingPermissions names it */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No such RestoreTest or run */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Unexpected server error (details are only logged) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Caches still loading (not-ready) or the Kubernetes API unreachable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    listReports: {
        parameters: {
            query?: {
                /** @description Only the reports of this RestoreTest (404 when it does not exist). */
                test?: string;
                /** @description Namespace of `test` (default: the server's namespace); without `test`, only reports in this namespace. */
                namespace?: string;
                /** @description Look-back in days. */
                days?: number;
                /** @description Only the most recent report per test (not paged). */
                latest?: boolean;
                /** @description Most reports in one answer. */
                limit?: number;
                /** @description The token from the previous answer's Link rel="next" (opaque). */
                continue?: string;
                /** @description Only reports with this result (with latest: the latest reports that have it). */
                result?: components["schemas"]["RunResult"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description RestoreReports, newest first */
            200: {
                headers: {
                    /** @description Those namespaces, comma-separated; only to callers who may list namespaces cluster-wide. */
                    "Rehearsal-Omitted-Namespace-Names"?: string;
                    /** @description How many namespaces holding Rehearsal objects the answer leaves out (the caller may not list there); absent when none. */
                    "Rehearsal-Omitted-Namespaces"?: string;
                    /** @description The next page: `<URL>; rel="next"`; absent on the last page. */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RestoreReportResource"][];
                };
            };
            /** @description Not Modified: If-None-Match names the current ETag of this answer */
            304: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description A query parameter is malformed or out of range, or continue is not a token of this list */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No bearer token, or the cluster rejected it */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The caller lacks a permission; missingPermissions names it */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description test names a RestoreTest that does not exist */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Unexpected server error (details are only logged) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Caches still loading (not-ready) or the Kubernetes API unreachable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    getCompliancePdf: {
        parameters: {
            query: {
                /** @description soc2, iso27001, hipaa, dora or pcidss. */
                framework: components["schemas"]["FrameworkId"];
                /** @description Reporting period in days. */
                period: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The signed PDF */
            200: {
                headers: {
                    /** @description attachment; filename="rehearsal-compliance-<framework>-<period>d.pdf" */
                    "Content-Disposition": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/pdf": string;
                };
            };
            /** @description framework unknown or missing, or period missing or out of range */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No bearer token, or the cluster rejected it */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The license in effect lacks PDF export (enterprise tier, flag pdfExport) */
            402: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The caller lacks a permission; missingPermissions names it */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Unexpected server error (details are only logged) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Caches still loading (not-ready), the Kubernetes API unreachable, no signing key yet (signing-key-unavailable), or too many PDFs being rendered at once (pdf-busy); Retry-After says when to retry */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying (pdf-busy, signing-key-unavailable). */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    getTestReportPdf: {
        parameters: {
            query?: {
                /** @description Period in days (runs completed in the last `period` days). */
                period?: number;
                /** @description Namespace of the RestoreTest; default: the server's namespace. */
                namespace?: string;
            };
            header?: never;
            path: {
                /** @description Name of the RestoreTest. */
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The signed PDF */
            200: {
                headers: {
                    /** @description attachment; filename="rehearsal-test-<namespace>-<name>-<period>d.pdf" */
                    "Content-Disposition": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/pdf": string;
                };
            };
            /** @description name, namespace or period is malformed or out of range */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No bearer token, or the cluster rejected it */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The license in effect lacks PDF test reports (enterprise tier, flag pdfReports) */
            402: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The caller lacks a permission; missingPermissions names it */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No such RestoreTest */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Unexpected server error (details are only logged) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Caches still loading (not-ready), the Kubernetes API unreachable, no signing key yet (signing-key-unavailable), or too many PDFs being rendered at once (pdf-busy); Retry-After says when to retry */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying (pdf-busy, signing-key-unavailable). */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    getLicense: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ok */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LicenseResponse"];
                };
            };
            /** @description No bearer token, or the cluster rejected it */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The caller lacks a permission; missingPermissions names it */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Unexpected server error (details are only logged) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ok */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HealthResponse"];
                };
            };
        };
    };
    listEvidenceKeys: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ok */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EvidencePublicKey"][];
                };
            };
            /** @description No bearer token, or the cluster rejected it */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The caller lacks a permission; missingPermissions names it */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Unexpected server error (details are only logged) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The signing key has not been loaded yet (signing-key-unavailable) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    getSummary: {
        parameters: {
            query?: {
                /** @description Only this namespace (403 when the caller may not list there). Without it: every namespace the caller may list; the headers Rehearsal-Omitted-Namespaces and Rehearsal-Omitted-Namespace-Names report those left out. */
                namespace?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Summary */
            200: {
                headers: {
                    /** @description Those namespaces, comma-separated; only to callers who may list namespaces cluster-wide. */
                    "Rehearsal-Omitted-Namespace-Names"?: string;
                    /** @description How many namespaces holding Rehearsal objects the answer leaves out (the caller may not list there); absent when none. */
                    "Rehearsal-Omitted-Namespaces"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Summary"];
                };
            };
            /** @description Not Modified: If-None-Match names the current ETag of this answer */
            304: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description namespace is not an RFC 1123 label */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No bearer token, or the cluster rejected it */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The caller lacks a permission; missingPermissions names it */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Unexpected server error (details are only logged) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Caches still loading (not-ready) or the Kubernetes API unreachable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    getDailySummary: {
        parameters: {
            query?: {
                /** @description Number of days, today included. */
                days?: number;
                /** @description Only this namespace (403 when the caller may not list there). Without it: every namespace the caller may list; the headers Rehearsal-Omitted-Namespaces and Rehearsal-Omitted-Namespace-Names report those left out. */
                namespace?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Daily figures */
            200: {
                headers: {
                    /** @description Those namespaces, comma-separated; only to callers who may list namespaces cluster-wide. */
                    "Rehearsal-Omitted-Namespace-Names"?: string;
                    /** @description How many namespaces holding Rehearsal objects the answer leaves out (the caller may not list there); absent when none. */
                    "Rehearsal-Omitted-Namespaces"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DailySummary"][];
                };
            };
            /** @description Not Modified: If-None-Match names the current ETag of this answer */
            304: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description days is not an integer from 1 to 3650, or namespace is not an RFC 1123 label */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No bearer token, or the cluster rejected it */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The caller lacks a permission; missingPermissions names it */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Unexpected server error (details are only logged) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Caches still loading (not-ready) or the Kubernetes API unreachable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    listAlerts: {
        parameters: {
            query?: {
                /** @description Look-back in hours. */
                hours?: number;
                /** @description Only this namespace (403 when the caller may not list there). Without it: every namespace the caller may list; the headers Rehearsal-Omitted-Namespaces and Rehearsal-Omitted-Namespace-Names report those left out. */
                namespace?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Alerts, newest first */
            200: {
                headers: {
                    /** @description Those namespaces, comma-separated; only to callers who may list namespaces cluster-wide. */
                    "Rehearsal-Omitted-Namespace-Names"?: string;
                    /** @description How many namespaces holding Rehearsal objects the answer leaves out (the caller may not list there); absent when none. */
                    "Rehearsal-Omitted-Namespaces"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Alert"][];
                };
            };
            /** @description Not Modified: If-None-Match names the current ETag of this answer */
            304: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description hours is not an integer from 1 to 87600, or namespace is not an RFC 1123 label */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No bearer token, or the cluster rejected it */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The caller lacks a permission; missingPermissions names it */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Unexpected server error (details are only logged) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Caches still loading (not-ready) or the Kubernetes API unreachable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    listUpcoming: {
        parameters: {
            query?: {
                /** @description Only this namespace (403 when the caller may not list there). Without it: every namespace the caller may list; the headers Rehearsal-Omitted-Namespaces and Rehearsal-Omitted-Namespace-Names report those left out. */
                namespace?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Upcoming runs */
            200: {
                headers: {
                    /** @description Those namespaces, comma-separated; only to callers who may list namespaces cluster-wide. */
                    "Rehearsal-Omitted-Namespace-Names"?: string;
                    /** @description How many namespaces holding Rehearsal objects the answer leaves out (the caller may not list there); absent when none. */
                    "Rehearsal-Omitted-Namespaces"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UpcomingTest"][];
                };
            };
            /** @description Not Modified: If-None-Match names the current ETag of this answer */
            304: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description namespace is not an RFC 1123 label */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No bearer token, or the cluster rejected it */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The caller lacks a permission; missingPermissions names it */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Unexpected server error (details are only logged) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Caches still loading (not-ready) or the Kubernetes API unreachable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    getCoverage: {
        parameters: {
            query?: {
                /** @description Only this namespace (403 when the caller may not list there). Without it: every namespace the caller may list; the headers Rehearsal-Omitted-Namespaces and Rehearsal-Omitted-Namespace-Names report those left out. */
                namespace?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Coverage */
            200: {
                headers: {
                    /** @description Those namespaces, comma-separated; only to callers who may list namespaces cluster-wide. */
                    "Rehearsal-Omitted-Namespace-Names"?: string;
                    /** @description How many namespaces holding Rehearsal objects the answer leaves out (the caller may not list there); absent when none. */
                    "Rehearsal-Omitted-Namespaces"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CoverageResponse"];
                };
            };
            /** @description namespace is not an RFC 1123 label */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No bearer token, or the cluster rejected it */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The caller lacks a permission; missingPermissions names it */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Unexpected server error (details are only logged) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Caches still loading (not-ready), or the backup tool (Velero, Kasten or Trilio) not installed or not reachable (backup-tool-unavailable) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    getCompliance: {
        parameters: {
            query: {
                /** @description soc2, iso27001, hipaa, dora or pcidss. */
                framework: components["schemas"]["FrameworkId"];
                /** @description Reporting period in days. */
                period: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ok */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ComplianceResponse"];
                };
            };
            /** @description Not Modified: If-None-Match names the current ETag of this answer */
            304: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description framework unknown or missing, or period missing or out of range */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No bearer token, or the cluster rejected it */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The caller lacks a permission; missingPermissions names it */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Unexpected server error (details are only logged) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Caches still loading (not-ready) or the Kubernetes API unreachable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    getComplianceOverview: {
        parameters: {
            query?: {
                /** @description Period in days. */
                period?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ok */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ComplianceOverview"];
                };
            };
            /** @description Not Modified: If-None-Match names the current ETag of this answer */
            304: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description period is not an integer from 1 to 3650 */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No bearer token, or the cluster rejected it */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The license in effect lacks the Compliance page (Team tier or above, flag compliancePage) */
            402: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The caller lacks a permission; missingPermissions names it */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Unexpected server error (details are only logged) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Caches still loading (not-ready) or the Kubernetes API unreachable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
}
