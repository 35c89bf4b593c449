// The health-check engine's public surface, for the controller (and tests).

export type { CheckContext, CheckExecutor, CheckOutcome, NamespaceMapping, RunnableCheck } from './check.js';
export {
  DEFAULT_CHECK_TIMEOUT,
  MAX_CHECK_TIMEOUT_MS,
  runCheck,
  runChecks,
  type RunChecksOptions,
} from './check-runner.js';
export { checksForRun, defaultChecks } from './default-checks.js';
export { formatCheckDuration } from '../domain/common/duration.js';
export {
  SandboxReadError,
  type EndpointSliceSummary,
  type ExecOutcome,
  type PodSummary,
  type ResourceLookup,
  type SandboxReader,
  type SandboxReadFailure,
  type SecretSummary,
  type ServiceSummary,
} from './sandbox-reader.js';
export {
  ClusterDnsTargetResolver,
  createTargetResolver,
  StaticTargetResolver,
  TargetResolutionError,
  type ResolvedTarget,
  type ServiceTarget,
  type TargetResolver,
  type TargetResolverConfig,
} from './target-resolver.js';
