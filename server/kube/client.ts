// Builds the Kubernetes clients from the configuration: an explicit kubeconfig path, else the
// in-cluster service account, else ~/.kube/config.
import {
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  KubernetesObjectApi,
  NetworkingV1Api,
  DiscoveryV1Api,
  AuthenticationV1Api,
  AuthorizationV1Api,
} from '@kubernetes/client-node';

export interface KubeClients {
  kubeConfig: KubeConfig;
  core: CoreV1Api;
  customObjects: CustomObjectsApi;
  networking: NetworkingV1Api;
  coordination: CoordinationV1Api;
  discovery: DiscoveryV1Api;
  objects: KubernetesObjectApi;
  authentication: AuthenticationV1Api;
  authorization: AuthorizationV1Api;
}

export function loadKubeConfig(kubeconfigPath: string | undefined): KubeConfig {
  const kubeConfig = new KubeConfig();
  if (kubeconfigPath) kubeConfig.loadFromFile(kubeconfigPath);
  else kubeConfig.loadFromDefault();
  return kubeConfig;
}

export function makeKubeClients(kubeConfig: KubeConfig): KubeClients {
  return {
    kubeConfig,
    core: kubeConfig.makeApiClient(CoreV1Api),
    customObjects: kubeConfig.makeApiClient(CustomObjectsApi),
    networking: kubeConfig.makeApiClient(NetworkingV1Api),
    coordination: kubeConfig.makeApiClient(CoordinationV1Api),
    discovery: kubeConfig.makeApiClient(DiscoveryV1Api),
    objects: KubernetesObjectApi.makeApiClient(kubeConfig),
    authentication: kubeConfig.makeApiClient(AuthenticationV1Api),
    authorization: kubeConfig.makeApiClient(AuthorizationV1Api),
  };
}
