// Runs the real Express app in-process on 127.0.0.1 (port 0) over the in-memory fakes, with the
// generated openapi-fetch client pointed at it through the contract-checking fetch.
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import pino from 'pino';
import { loadConfig } from '../../../server/config.js';
import { Metrics } from '../../../server/metrics/metrics.js';
import { createApp, type HttpDeps } from '../../../server/api/http.js';
import type { MetricsReviewer } from '../../../server/api/auth/metrics-access.js';
import type { AccessReviewer } from '../../../server/api/auth/access-review.js';
import type { DiagnosisSource, EvidenceKeySource, LicenseSource } from '../../../server/api/ports.js';
import { featuresForTier } from '../../../server/domain/license-tiers.js';
import type { ClusterDefaults } from '../../../server/domain/run/cluster-defaults.js';
import {
  exportPublicKeyPem,
  generateSigningKey,
  publicKeyRing,
  type SigningKey,
} from '../../../server/evidence/signing-key.js';
import { createRehearsalClient, type RehearsalApiClient } from '../../../openapi/client.js';
import { ContractValidator, loadDocument } from './contract.js';
import { FakeCluster, FakeSchedules, writerOf } from './fake-cluster.js';
import { coverageSourceOver, FakeInventory, FakeWorkloads } from './fake-inventory.js';
import { FakeNamespaces, sandboxAdminOver } from './fake-namespaces.js';
import type { BackupInventory } from '../../../server/domain/read-models/coverage.js';

export const NOW = new Date('2026-03-15T12:00:00Z');

export interface TestServer {
  baseUrl: string;
  cluster: FakeCluster;
  schedules: FakeSchedules;
  /** What the backup tool backs up (GET /api/v1/coverage). */
  inventory: FakeInventory;
  /** What the source namespaces run (GET /api/v1/test-drafts). */
  workloads: FakeWorkloads;
  /** Namespaces, sandboxes among them (GET /api/v1/sandboxes). */
  namespaces: FakeNamespaces;
  contract: ContractValidator;
  /** The generated client; every answer it receives is checked against openapi.json. */
  api: RehearsalApiClient;
  /** A plain fetch that is checked too, for requests the typed client cannot express. */
  fetch: (path: string, init?: RequestInit) => Promise<Response>;
  /** An unchecked fetch, for paths outside the API (/openapi.json, /docs, unknown routes). */
  rawFetch: (path: string, init?: RequestInit) => Promise<Response>;
  close(): Promise<void>;
}

export interface TestServerOptions {
  authMode?: 'none' | 'kubernetes';
  /** The cluster-wide defaults in effect (default: the built-in ones); read on every request. */
  clusterDefaults?: () => Readonly<ClusterDefaults>;
  reviewer?: AccessReviewer;
  token?: string;
  triggerWaitMs?: number;
  withoutSchedules?: boolean;
  /** No coverage source (the server has no backup tool that lists backups). */
  withoutCoverage?: boolean;
  /** REHEARSAL_BACKUP_TOOL (default velero): the tool coverage and test drafts read. */
  backupTool?: 'velero' | 'kasten' | 'trilio';
  /**
   * Reads the inventory instead of the in-memory FakeInventory (e.g. the real Kasten or Trilio
   * provider over a fake Kubernetes API, through inventoryReader).
   */
  readInventory?: () => Promise<BackupInventory>;
  /** Stored diagnoses of failed runs. */
  diagnoses?: DiagnosisSource;
  contract?: ContractValidator;
  /** The license in effect (default: a perpetual enterprise license). */
  license?: LicenseSource;
  /** Evidence keys (default: a fresh signing key, no retired keys); null = none loaded. */
  evidenceKeys?: EvidenceKeySource | null;
}

/** A fixed license for the fakes. */
export function fixedLicense(
  tier: 'community' | 'pro' | 'enterprise',
  reason?: string,
): LicenseSource & { set(tier: 'community' | 'pro' | 'enterprise', reason?: string): void } {
  let state = { tier, reason };
  return {
    set(next, nextReason) {
      state = { tier: next, reason: nextReason };
    },
    current() {
      return {
        license: {
          tier: state.tier,
          expiresAt: null,
          trialEndsAt: null,
          isExpired: false,
          isTrialing: false,
          trialDaysLeft: 0,
          features: featuresForTier(state.tier),
        },
        ...(state.reason ? { reason: state.reason } : {}),
      };
    },
  };
}

/** Evidence keys over one signing key, plus any retired public keys. */
export function keySourceOf(key: SigningKey, retired: SigningKey[] = []): EvidenceKeySource {
  const createdAt = '2026-03-01T00:00:00.000Z';
  return {
    publicKeys: () => [
      {
        keyId: key.keyId,
        algorithm: 'Ed25519',
        publicKeyPem: exportPublicKeyPem(key),
        createdAt,
        status: 'current',
      },
      ...retired.map((old) => ({
        keyId: old.keyId,
        algorithm: 'Ed25519' as const,
        publicKeyPem: exportPublicKeyPem(old),
        createdAt: '2026-01-01T00:00:00.000Z',
        status: 'retired' as const,
        retiredAt: createdAt,
      })),
    ],
    signingKey: () => ({ key }),
    keyRing: () => publicKeyRing([key.publicKey, ...retired.map((old) => old.publicKey)]),
  };
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const cluster = new FakeCluster();
  const schedules = new FakeSchedules();
  const inventory = new FakeInventory();
  const workloads = new FakeWorkloads(options.backupTool ?? 'velero');
  const namespaces = new FakeNamespaces();
  const contract = options.contract ?? new ContractValidator(loadDocument());
  const config = loadConfig({
    REHEARSAL_AUTH_MODE: options.authMode ?? 'none',
    REHEARSAL_HOST: '127.0.0.1',
    REHEARSAL_PORT: '0',
    ...(options.backupTool ? { REHEARSAL_BACKUP_TOOL: options.backupTool } : {}),
  });
  const deps: HttpDeps = {
    config,
    cache: cluster,
    client: writerOf(cluster),
    metrics: new Metrics({ defaultMetrics: false }),
    log: pino({ level: 'silent' }),
    now: () => NOW,
    triggerWaitMs: options.triggerWaitMs ?? 1_000,
    ...(options.withoutSchedules ? {} : { schedules }),
    sandboxes: sandboxAdminOver(cluster, namespaces, () => NOW),
    ...(options.withoutCoverage
      ? {}
      : { coverage: coverageSourceOver(cluster, options.readInventory ? { read: options.readInventory } : inventory, () => NOW), workloads }),
    ...(options.diagnoses ? { diagnoses: options.diagnoses } : {}),
    ...(options.clusterDefaults ? { clusterDefaults: options.clusterDefaults } : {}),
    ...(options.reviewer ? { accessReviewer: options.reviewer } : {}),
    // A fake reviewer that also answers non-resource reviews stands in for /metrics too.
    ...(options.reviewer && 'reviewNonResourceAccess' in options.reviewer
      ? { metricsReviewer: options.reviewer as AccessReviewer & MetricsReviewer }
      : {}),
    license: options.license ?? fixedLicense('enterprise'),
    ...(options.evidenceKeys === null
      ? {}
      : { evidenceKeys: options.evidenceKeys ?? keySourceOf(generateSigningKey()) }),
  };
  const server: Server = createServer(createApp(deps));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const checkedFetch = contract.fetch();
  return {
    baseUrl,
    cluster,
    schedules,
    inventory,
    workloads,
    namespaces,
    contract,
    api: createRehearsalClient({
      baseUrl,
      fetch: checkedFetch,
      ...(options.token ? { token: options.token } : {}),
    }),
    fetch: (path, init) => checkedFetch(new Request(`${baseUrl}${path}`, init)),
    rawFetch: (path, init) => fetch(`${baseUrl}${path}`, init),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
