// Reads the kubeconfig the way kubectl does (--kubeconfig, else every file in KUBECONFIG merged
// with the first definition winning, else ~/.kube/config; --context, else current-context) and
// picks the context's cluster, user and namespace.
//
// Startup time matters for a kubectl plugin, and loading @kubernetes/client-node costs about half
// a second (it loads every generated API model). So when the user's credentials are static — a
// bearer token (or token file) and/or a client certificate, a CA, insecure-skip-tls-verify,
// tls-server-name — the plugin applies them itself ("simple" below). Anything else (exec and
// auth-provider plugins, basic auth, impersonation, proxy-url, in-cluster config) goes through
// client-node's KubeConfig, which implements all of it (connect.ts).
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { CliError } from './errors.js';
import type { Env } from './io.js';

export interface SimpleCredentials {
  token?: string;
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  insecureSkipTlsVerify: boolean;
  serverName?: string;
}

export interface KubeconfigChoice {
  /** The files read, in KUBECONFIG order (empty for the in-cluster configuration). */
  files: string[];
  contextName: string;
  namespace?: string;
  server: string;
  /** Set when the plugin can apply the credentials itself; undefined = client-node must. */
  simple?: SimpleCredentials;
}

type Entries = Record<string, { value: Record<string, unknown>; dir: string }>;

const SIMPLE_CLUSTER_KEYS = new Set(['server', 'certificate-authority', 'certificate-authority-data', 'insecure-skip-tls-verify', 'tls-server-name', 'extensions']);
const SIMPLE_USER_KEYS = new Set(['token', 'tokenFile', 'token-file', 'client-certificate', 'client-certificate-data', 'client-key', 'client-key-data', 'extensions']);

export function kubeconfigFiles(explicit: string | undefined, env: Env): string[] {
  if (explicit !== undefined) return [explicit];
  const fromEnv = env.KUBECONFIG;
  if (fromEnv) {
    const existing = fromEnv.split(path.delimiter).filter((file) => file !== '' && existsSync(file));
    if (existing.length === 0) throw new CliError(`KUBECONFIG names no existing file (${fromEnv})`);
    return existing;
  }
  const home = env.HOME;
  const fallback = home ? path.join(home, '.kube', 'config') : undefined;
  return fallback && existsSync(fallback) ? [fallback] : [];
}

export function inCluster(env: Env): boolean {
  return Boolean(env.KUBERNETES_SERVICE_HOST) && existsSync('/var/run/secrets/kubernetes.io/serviceaccount/token');
}

function named(list: unknown, field: string, dir: string, into: Entries): void {
  if (!Array.isArray(list)) return;
  for (const entry of list as { name?: unknown }[]) {
    const value = (entry as Record<string, unknown>)?.[field];
    if (typeof entry?.name === 'string' && !(entry.name in into)) {
      into[entry.name] = { value: typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {}, dir };
    }
  }
}

async function fileBytes(dataKey: unknown, fileKey: unknown, dir: string): Promise<Buffer | undefined> {
  if (typeof dataKey === 'string' && dataKey !== '') return Buffer.from(dataKey, 'base64');
  if (typeof fileKey === 'string' && fileKey !== '') {
    const file = path.isAbsolute(fileKey) ? fileKey : path.join(dir, fileKey);
    try {
      return await readFile(file);
    } catch (error) {
      throw new CliError(`cannot read ${file} named in the kubeconfig: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
  }
  return undefined;
}

/** undefined when there is no kubeconfig at all (and not in a cluster). */
export async function readKubeconfig(options: { kubeconfig?: string; context?: string; env: Env }): Promise<KubeconfigChoice | undefined> {
  const files = kubeconfigFiles(options.kubeconfig, options.env);
  if (files.length === 0) {
    if (!inCluster(options.env)) return undefined;
    // In a Pod: the ServiceAccount; client-node reads it (token rotation included).
    return {
      files: [],
      contextName: 'in-cluster',
      server: `https://${options.env.KUBERNETES_SERVICE_HOST}:${options.env.KUBERNETES_SERVICE_PORT ?? '443'}`,
    };
  }
  const { parse } = await import('yaml');
  const clusters: Entries = {};
  const users: Entries = {};
  const contexts: Entries = {};
  let currentContext: string | undefined;
  for (const file of files) {
    let document: Record<string, unknown>;
    try {
      document = (parse(await readFile(file, 'utf8')) ?? {}) as Record<string, unknown>;
    } catch (error) {
      throw new CliError(`cannot load kubeconfig ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message.split('\n')[0]}`);
    }
    const dir = path.dirname(path.resolve(file));
    named(document.clusters, 'cluster', dir, clusters);
    named(document.users, 'user', dir, users);
    named(document.contexts, 'context', dir, contexts);
    if (!currentContext && typeof document['current-context'] === 'string' && document['current-context'] !== '') {
      currentContext = document['current-context'];
    }
  }
  if (options.context !== undefined && !(options.context in contexts)) {
    throw new CliError(`context "${options.context}" not found in the kubeconfig`, [`contexts: ${Object.keys(contexts).join(', ') || '(none)'}`]);
  }
  const contextName = options.context ?? currentContext;
  const context = contextName ? contexts[contextName]?.value : undefined;
  if (!contextName || !context) throw new CliError('the kubeconfig has no current context', ['choose one with --context NAME']);
  const clusterName = typeof context.cluster === 'string' ? context.cluster : '';
  const cluster = clusters[clusterName];
  if (!cluster || typeof cluster.value.server !== 'string' || cluster.value.server === '') {
    throw new CliError(`the kubeconfig context "${contextName}" names no cluster with a server`);
  }
  const user = typeof context.user === 'string' ? users[context.user] : undefined;
  const namespace = typeof context.namespace === 'string' && context.namespace !== '' ? context.namespace : undefined;
  const choice: KubeconfigChoice = { files, contextName, namespace, server: cluster.value.server.replace(/\/+$/, '') };
  const userValue = user?.value ?? {};
  const simple =
    Object.keys(cluster.value).every((key) => SIMPLE_CLUSTER_KEYS.has(key)) &&
    Object.keys(userValue).every((key) => SIMPLE_USER_KEYS.has(key));
  if (simple) {
    const userDir = user?.dir ?? cluster.dir;
    // kubectl's field is tokenFile (client-node only knows "token-file"); read it here.
    const tokenFile = await fileBytes(undefined, userValue.tokenFile ?? userValue['token-file'], userDir);
    choice.simple = {
      token: typeof userValue.token === 'string' && userValue.token !== '' ? userValue.token : tokenFile?.toString('utf8').trim() || undefined,
      ca: await fileBytes(cluster.value['certificate-authority-data'], cluster.value['certificate-authority'], cluster.dir),
      cert: await fileBytes(userValue['client-certificate-data'], userValue['client-certificate'], userDir),
      key: await fileBytes(userValue['client-key-data'], userValue['client-key'], userDir),
      insecureSkipTlsVerify: cluster.value['insecure-skip-tls-verify'] === true,
      serverName: typeof cluster.value['tls-server-name'] === 'string' ? cluster.value['tls-server-name'] : undefined,
    };
  }
  return choice;
}
