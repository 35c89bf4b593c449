// Sandboxes are never looser than their source (issue 28): each sandbox namespace enforces the
// stricter of its source namespace's Pod Security profile and a floor (the test's
// spec.restore.podSecurity, else the installation's REHEARSAL_POD_SECURITY_FLOOR, default
// baseline). The labels are on the namespace from its creation, before anything is restored, so
// the apiserver's PodSecurity admission judges every restored Pod. A source namespace without the
// label counts as unlabelled (the floor decides): the cluster's own default (its AdmissionConfiguration)
// cannot be read through the API. Pure.
import { POD_SECURITY_LEVELS, type PodSecurityLevel } from '../resources/resources.js';

export const POD_SECURITY_ENFORCE_LABEL = 'pod-security.kubernetes.io/enforce';
const LABEL_PREFIX = 'pod-security.kubernetes.io/';

/** The installation's floor when none is configured. */
export const DEFAULT_POD_SECURITY_FLOOR: PodSecurityLevel = 'baseline';

function rank(level: PodSecurityLevel): number {
  return POD_SECURITY_LEVELS.indexOf(level);
}

function isPodSecurityLevel(value: unknown): value is PodSecurityLevel {
  return typeof value === 'string' && (POD_SECURITY_LEVELS as readonly string[]).includes(value);
}

/**
 * A namespace's enforce level from its labels: undefined without the label; an invalid value
 * reads as restricted, as the PodSecurity admission plugin reads it (it fails closed).
 */
export function enforcedLevel(labels: Readonly<Record<string, string>> | undefined): PodSecurityLevel | undefined {
  const value = labels?.[POD_SECURITY_ENFORCE_LABEL];
  if (value === undefined) return undefined;
  return isPodSecurityLevel(value) ? value : 'restricted';
}

export function stricterLevel(left: PodSecurityLevel, right: PodSecurityLevel): PodSecurityLevel {
  return rank(left) >= rank(right) ? left : right;
}

/** Whether `level` is looser than `floor` (lowering the floor needs the administer verb). */
export function isLooser(level: PodSecurityLevel, floor: PodSecurityLevel): boolean {
  return rank(level) < rank(floor);
}

/** The floor of one test: its own spec.restore.podSecurity, else the installation's. */
export function podSecurityFloor(testFloor: PodSecurityLevel | undefined, installationFloor: PodSecurityLevel): PodSecurityLevel {
  return testFloor ?? installationFloor;
}

/** What a sandbox enforces: the stricter of its source's level and the floor. */
export function sandboxLevel(sourceLevel: PodSecurityLevel | undefined, floor: PodSecurityLevel): PodSecurityLevel {
  return sourceLevel === undefined ? floor : stricterLevel(sourceLevel, floor);
}

/**
 * The sandbox namespace's labels: enforce, audit and warn at one level, each against the newest
 * policy version (`latest`), so a sandbox never runs an older, looser reading of the profile.
 */
export function podSecurityLabels(level: PodSecurityLevel): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const mode of ['enforce', 'audit', 'warn']) {
    labels[`${LABEL_PREFIX}${mode}`] = level;
    labels[`${LABEL_PREFIX}${mode}-version`] = 'latest';
  }
  return labels;
}
