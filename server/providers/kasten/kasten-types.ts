// The parts of Veeam Kasten (K10)'s public Kubernetes API that Rehearsal reads and writes, as its
// API documentation describes them (docs.kasten.io, "API and Custom Resources": RestorePoint,
// RestoreAction). Wire shapes for the provider only. Not checked against a running K10: Kasten
// cannot run here, so the provider is tested against test/kasten/simulator.ts (docs/operations.md, "Backup tools").

import type { KastenTransforms } from './kasten-transforms.js';

/** RestorePoints live in the application's namespace: one per backup of that application. */
export const RESTORE_POINTS = {
  tool: 'Kasten',
  group: 'apps.kio.kasten.io',
  version: 'v1alpha1',
  plural: 'restorepoints',
};
export const RESTORE_ACTIONS = {
  tool: 'Kasten',
  group: 'actions.kio.kasten.io',
  version: 'v1alpha1',
  plural: 'restoreactions',
};

export interface KastenMetadata {
  name: string;
  namespace?: string;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
}

export interface KastenRestorePoint {
  apiVersion?: string;
  kind?: string;
  metadata: KastenMetadata;
  spec?: { restorePointContentRef?: { name?: string } };
  /** actionTime: when the backup that made this point ran. */
  status?: { actionTime?: string; logicalSize?: number; physicalSize?: number };
}

/** K10 action states; "AttemptFailed" is a failed attempt that K10 retries. */
export type KastenActionState =
  'Pending' | 'Running' | 'AttemptFailed' | 'Complete' | 'Failed' | 'Skipped' | 'Cancelled';

export interface KastenRestoreAction {
  apiVersion?: string;
  kind?: string;
  metadata: KastenMetadata;
  spec?: {
    subject?: { kind?: string; name?: string; namespace?: string };
    /** The namespace the application is restored into (a sandbox, for Rehearsal). */
    targetNamespace?: string;
    /** Resource types not restored (kasten-transforms.ts). */
    filters?: KastenTransforms['filters'];
    /** Changes to restored objects (kasten-transforms.ts). */
    transforms?: KastenTransforms['transforms'];
  };
  status?: {
    state?: KastenActionState;
    startTime?: string;
    endTime?: string;
    /** Percent, 0-100. */
    progress?: number;
    /**
     * The whole action's error. Kasten documents nothing per volume on a RestoreAction, so a Kasten
     * report has no volume table (decision 0012, "Volume data with Kasten and Trilio").
     */
    error?: { message?: string };
  };
}

/**
 * Kasten Policies (config.kio.kasten.io/v1alpha1), read for backup coverage and test drafts: an
 * administrator's live in Kasten's namespace (kasten-io), an application-scoped one in the
 * application's namespace, so they are listed across namespaces.
 */
export const POLICIES = {
  tool: 'Kasten',
  group: 'config.kio.kasten.io',
  version: 'v1alpha1',
  plural: 'policies',
};

/** A label selector as a Policy writes it; Kasten selects applications by k10.kasten.io/appNamespace. */
export interface KastenSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key?: string; operator?: string; values?: string[] }[];
}

/**
 * The Policy fields Rehearsal reads (docs.kasten.io, "Policies" and the Policy API type):
 * `frequency` is a macro (@hourly, @daily, @weekly, @monthly, @yearly, or @onDemand for none);
 * `subFrequency` says when within the period it runs (minutes, hours, weekdays 0-6 with Sunday 0,
 * days of the month, months), in UTC; a Policy with `presetRef` takes its frequency from a
 * PolicyPreset, which Rehearsal does not read.
 */
export interface KastenPolicy {
  apiVersion?: string;
  kind?: string;
  metadata: KastenMetadata;
  spec?: {
    frequency?: string;
    subFrequency?: {
      minutes?: number[];
      hours?: number[];
      weekdays?: number[];
      days?: number[];
      months?: number[];
    };
    presetRef?: { name?: string; namespace?: string };
    selector?: KastenSelector;
    actions?: { action?: string }[];
  };
}
