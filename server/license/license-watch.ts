// The license in effect (decision 0007): Secret `rehearsal-license` (key `license`) in Rehearsal's
// namespace, watched, so installing, replacing or deleting it takes effect without a restart.
// The token is verified once per change against the configured public keys; the domain rules
// (expiry, trial end) are applied on every read with the current time, so a license expires at
// its instant even when nothing in the cluster changes.
//
// Anything wrong — no Secret, no key in it, bad signature, unknown key id, expired — means the
// community tier, with the reason logged once when the state changes (never the token itself).
import type { KubeConfig, V1Secret } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { evaluateLicense, type LicenseEvaluation, type LicenseVerification } from '../domain/license-tiers.js';
import { verifyLicenseToken, type LicenseKeyRing } from './license-verifier.js';
import { NamedObjectWatch } from '../kube/named-object-watch.js';

export const LICENSE_SECRET_NAME = 'rehearsal-license';
export const LICENSE_SECRET_KEY = 'license';

/** What LicenseWatch needs from a watch of the Secret (NamedObjectWatch; tests feed it by hand). */
export interface SecretWatch {
  start(): Promise<void>;
  stop(): void;
}

export interface LicenseWatchOptions {
  kubeConfig: KubeConfig;
  namespace: string;
  /** Loads the trusted public keys; called once by start() (a failure is a start-up error). */
  loadKeys: () => Promise<LicenseKeyRing>;
  log: Logger;
  now: () => Date;
  secretName?: string;
  /** Replaces the Secret watch (unit tests): gets the handler to call with each Secret state. */
  watch?: (handler: (secret: V1Secret | undefined) => void) => SecretWatch;
}

export class LicenseWatch {
  private keys: LicenseKeyRing = new Map();
  private verification: LicenseVerification | undefined;
  /** Serializes verifications so an older token never overwrites a newer one. */
  private verifying: Promise<void> = Promise.resolve();
  private generation = 0;
  private lastLogged = '';
  private readonly watch: SecretWatch;
  private readonly secretName: string;
  private noSecretReason = 'license Secret not read yet';

  constructor(private readonly options: LicenseWatchOptions) {
    this.secretName = options.secretName ?? LICENSE_SECRET_NAME;
    const handler = (secret: V1Secret | undefined): void => this.onSecret(secret);
    this.watch = options.watch
      ? options.watch(handler)
      : new NamedObjectWatch<V1Secret>(
          options.kubeConfig,
          {
            apiVersion: 'v1',
            kind: 'Secret',
            plural: 'secrets',
            namespace: options.namespace,
            name: this.secretName,
          },
          handler,
          options.log,
        );
  }

  /** Loads the keys (throws on a misconfigured trust store), then reads and watches the Secret. */
  async start(): Promise<void> {
    this.keys = await this.options.loadKeys();
    if (this.keys.size === 0) {
      this.options.log.warn(
        'no license public keys configured (REHEARSAL_LICENSE_PUBLIC_KEYS): every license counts as community',
      );
    }
    await this.watch.start();
    await this.settled();
    this.current();
  }

  stop(): void {
    this.watch.stop();
  }

  /** Resolves once the verifications of every change seen so far are done (tests, start-up). */
  async settled(): Promise<void> {
    let seen: Promise<void>;
    do {
      seen = this.verifying;
      await seen;
    } while (seen !== this.verifying);
  }

  /** The license in effect now, with the reason when it is not the licensed tier. */
  current(): LicenseEvaluation {
    const evaluation =
      this.verification === undefined && this.noSecretReason
        ? { ...evaluateLicense(undefined, this.options.now()), reason: this.noSecretReason }
        : evaluateLicense(this.verification, this.options.now());
    this.logTransition(evaluation);
    return evaluation;
  }

  private onSecret(secret: V1Secret | undefined): void {
    const generation = ++this.generation;
    const encoded = secret?.data?.[LICENSE_SECRET_KEY];
    const token = encoded === undefined ? undefined : Buffer.from(encoded, 'base64').toString('utf8');
    const where = `Secret ${this.options.namespace}/${this.secretName}`;
    this.verifying = this.verifying.then(async () => {
      const verification =
        token === undefined || token.trim() === '' ? undefined : await verifyLicenseToken(token, this.keys);
      if (generation !== this.generation) return; // a newer change is queued behind this one
      this.verification = verification;
      this.noSecretReason =
        verification !== undefined
          ? ''
          : secret === undefined
            ? `no license installed (${where} does not exist)`
            : `no license installed (${where} has no key "${LICENSE_SECRET_KEY}")`;
      this.current();
    });
  }

  private logTransition(evaluation: LicenseEvaluation): void {
    const state = JSON.stringify([
      evaluation.license.tier,
      evaluation.license.isExpired,
      evaluation.license.isTrialing,
      evaluation.reason ?? '',
    ]);
    if (state === this.lastLogged) return;
    this.lastLogged = state;
    const { license } = evaluation;
    const fields = {
      tier: license.tier,
      features: license.features,
      expiresAt: license.expiresAt,
      trialEndsAt: license.trialEndsAt,
      ...(evaluation.licensee ? { licensee: evaluation.licensee } : {}),
    };
    if (evaluation.reason) {
      this.options.log.warn(
        { ...fields, reason: evaluation.reason },
        `license not in effect, running as community: ${evaluation.reason}`,
      );
    } else {
      this.options.log.info(
        fields,
        `license in effect: ${license.tier}${license.isTrialing ? ' (trial)' : ''}`,
      );
    }
  }
}
