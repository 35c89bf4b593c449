// Who may read /metrics (issue 26). The metrics name every namespace and test and list the
// namespaces whose backups nobody tests: on the probe port, which every pod of the cluster can
// reach, they were anyone's. Now, as kube-rbac-proxy does it: the bearer token is reviewed
// (TokenReview) and the user must be allowed `get` on the non-resource URL /metrics
// (SubjectAccessReview), which Prometheus's own ClusterRole usually grants already; the ClusterRole
// rehearsal-metrics-reader (deploy/components/monitoring) grants just that. The kubelet's probes
// go to /api/v1/health on the same port and need nothing.
//
// Tokens: by default those of the apiserver's own audiences (REHEARSAL_METRICS_TOKEN_AUDIENCES
// empty), because Prometheus sends its ServiceAccount token as it does to every target; set the
// variable to require a token minted for Rehearsal instead. Answers are remembered for a short
// while per token (a scrape every 30 s costs a review a minute), never a failed review.
import { createHash } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { isKind } from '../../kube/errors.js';
import type { AccessDecision, ReviewedUser } from './access-review.js';
import { TtlCache } from './ttl-cache.js';

export const METRICS_PATH = '/metrics';

export interface MetricsReviewer {
  reviewToken(token: string): Promise<ReviewedUser | null>;
  reviewNonResourceAccess(user: ReviewedUser, verb: string, path: string): Promise<AccessDecision>;
}

type Verdict = 'allowed' | 'unauthenticated' | 'forbidden';

const REMEMBER_MS = 60_000;

function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1];
}

/**
 * Express middleware in front of /metrics: 401 without a token the cluster accepts, 403 without
 * `get /metrics`, 503 when the apiserver cannot say; without a reviewer, always 401 (fail closed).
 */
export function requireMetricsAccess(reviewer: MetricsReviewer | undefined, log: Logger): RequestHandler {
  const verdicts = new TtlCache<Verdict>(1_000);
  const decide = async (token: string): Promise<Verdict> => {
    const user = await reviewer!.reviewToken(token);
    if (!user) return 'unauthenticated';
    const decision = await reviewer!.reviewNonResourceAccess(user, 'get', METRICS_PATH);
    return decision.allowed ? 'allowed' : 'forbidden';
  };
  return (req, res, next) => {
    const token = bearerToken(req.headers.authorization);
    if (!token || !reviewer) {
      res.status(401).set('WWW-Authenticate', 'Bearer realm="rehearsal-metrics"').type('text/plain').send('Unauthorized\n');
      return;
    }
    const key = createHash('sha256').update(token).digest('hex');
    verdicts
      .getOrLoad(key, () => decide(token), () => REMEMBER_MS)
      .then((verdict) => {
        if (verdict === 'allowed') return next();
        if (verdict === 'unauthenticated') {
          res.status(401).set('WWW-Authenticate', 'Bearer realm="rehearsal-metrics", error="invalid_token"').type('text/plain').send('Unauthorized\n');
          return;
        }
        res.status(403).type('text/plain').send(`Forbidden: the user may not get ${METRICS_PATH}\n`);
      })
      .catch((error: unknown) => {
        log.warn({ err: error, unavailable: isKind(error, 'Unavailable') }, 'reviewing a /metrics token failed');
        res.status(503).type('text/plain').send('The Kubernetes API could not review the token\n');
      });
  };
}
