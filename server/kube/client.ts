// Builds the Kubernetes clients from the configuration: an explicit kubeconfig path, else the
// in-cluster service account, else ~/.kube/config.
import {
  CoordinationV1Api,
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  KubernetesObjectApi,
  NetworkingV1Api,
  DiscoveryV1Api,
  AuthenticationV1Api,
  AuthorizationV1Api,
  RbacAuthorizationV1Api,
  type RequestContext,
} from '@kubernetes/client-node';

/**
 * The longest a single API request (not a watch) may take. kube-apiserver ends a request it is
 * still working on after 60 s (its --request-timeout), so waiting longer only means the request or
 * its connection was lost; without a limit the HTTP client waits up to 5 minutes for headers and a
 * reconcile that awaits it stalls silently. The margin lets the server's own 504 arrive first.
 */
export const KUBE_REQUEST_TIMEOUT_MS = 70_000;

/**
 * A KubeConfig whose API clients give up on a request after `requestTimeoutMs`. Every generated
 * client authenticates each request through its KubeConfig, which is where the deadline is set;
 * watches (client-node's Watch) use their own abort controller and idle timeout, so they are not
 * cut short.
 */
export class KubeConfigWithTimeouts extends KubeConfig {
  constructor(private readonly requestTimeoutMs: number = KUBE_REQUEST_TIMEOUT_MS) {
    super();
  }

  override async applySecurityAuthentication(context: RequestContext): Promise<void> {
    await super.applySecurityAuthentication(context);
    if (!context.getSignal()) context.setSignal(AbortSignal.timeout(this.requestTimeoutMs));
  }
}

export interface KubeClients {
  kubeConfig: KubeConfig;
  core: CoreV1Api;
  /** Workloads of source namespaces, read to draft tests (issue 32). */
  apps: AppsV1Api;
  customObjects: CustomObjectsApi;
  networking: NetworkingV1Api;
  coordination: CoordinationV1Api;
  discovery: DiscoveryV1Api;
  objects: KubernetesObjectApi;
  authentication: AuthenticationV1Api;
  authorization: AuthorizationV1Api;
  rbac: RbacAuthorizationV1Api;
}

export function loadKubeConfig(
  kubeconfigPath: string | undefined,
  requestTimeoutMs: number = KUBE_REQUEST_TIMEOUT_MS,
): KubeConfig {
  const kubeConfig = new KubeConfigWithTimeouts(requestTimeoutMs);
  if (kubeconfigPath) kubeConfig.loadFromFile(kubeconfigPath);
  else kubeConfig.loadFromDefault();
  return kubeConfig;
}

export function makeKubeClients(kubeConfig: KubeConfig): KubeClients {
  return {
    kubeConfig,
    core: kubeConfig.makeApiClient(CoreV1Api),
    apps: kubeConfig.makeApiClient(AppsV1Api),
    rbac: kubeConfig.makeApiClient(RbacAuthorizationV1Api),
    customObjects: kubeConfig.makeApiClient(CustomObjectsApi),
    networking: kubeConfig.makeApiClient(NetworkingV1Api),
    coordination: kubeConfig.makeApiClient(CoordinationV1Api),
    discovery: kubeConfig.makeApiClient(DiscoveryV1Api),
    objects: KubernetesObjectApi.makeApiClient(kubeConfig),
    authentication: kubeConfig.makeApiClient(AuthenticationV1Api),
    authorization: kubeConfig.makeApiClient(AuthorizationV1Api),
  };
}
