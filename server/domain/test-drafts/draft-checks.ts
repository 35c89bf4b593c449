// The health checks drafted from a namespace's workloads and Services (issue 32). Checks address
// the restored copy as every check does: a Service in the sandbox (same name as in the source) and
// its port number. What cannot be drafted faithfully is left out and said so in a note; what the
// user must write (the SQL that proves the data) is drafted so that it fails until they do.
//
// - podsReady per Deployment, StatefulSet and DaemonSet with pods: its selector, and minReady its
//   replicas (1 for a DaemonSet), so a copy with no pods fails instead of passing on nothing.
// - httpGet per distinct readiness/liveness httpGet probe of a container, through a Service whose
//   selector picks the pod and which has a port leading to the probe's container port; named
//   <service>-<port>-ready or -live after the probe (one check when both probe the same path).
// - tcpSocket per TCP port of every Service with a selector (ExternalName and selector-less
//   Services have no restored endpoints to dial).
// - sqlQuery per container running a known database image (postgres, postgresql, mysql, mariadb),
//   reached through a Service; critical, with a query that returns no row, so the check fails
//   until the user writes the real one.
import type { HealthCheck } from '../resources/resources.js';
import { labelName, uniqueName } from './draft-names.js';
import type { ContainerFacts, NamespaceFacts, ServiceFacts, WorkloadFacts } from './namespace-facts.js';

/** The CRD's limits: checks per test, selector entries, label values, path length. */
export const MAX_CHECKS = 32;
const MAX_SELECTOR_ENTRIES = 16;
const MAX_PATH_LENGTH = 2048;

export interface DraftedChecks {
  checks: HealthCheck[];
  notes: string[];
  /** What the user must fill in before the test can pass (the rehearsal.dev/generated-todo annotation). */
  todo: string[];
}

type Engine = 'postgres' | 'mysql';

interface DatabaseKind {
  engine: Engine;
  /** The image's name, for notes. */
  image: string;
  port: number;
  userVars: string[];
  passwordVars: string[];
  databaseVars: string[];
  defaultUser: string;
}

const POSTGRES: Omit<DatabaseKind, 'image'> = {
  engine: 'postgres',
  port: 5432,
  userVars: ['POSTGRES_USER', 'POSTGRESQL_USERNAME'],
  passwordVars: ['POSTGRES_PASSWORD', 'POSTGRESQL_PASSWORD'],
  databaseVars: ['POSTGRES_DB', 'POSTGRESQL_DATABASE'],
  defaultUser: 'postgres',
};
const MYSQL: Omit<DatabaseKind, 'image'> = {
  engine: 'mysql',
  port: 3306,
  userVars: ['MYSQL_USER', 'MARIADB_USER'],
  passwordVars: ['MYSQL_PASSWORD', 'MARIADB_PASSWORD', 'MYSQL_ROOT_PASSWORD', 'MARIADB_ROOT_PASSWORD'],
  databaseVars: ['MYSQL_DATABASE', 'MARIADB_DATABASE'],
  defaultUser: 'root',
};

/** The repository's last path segment, without tag or digest: docker.io/bitnami/postgresql:16 → postgresql. */
export function imageName(image: string): string {
  const withoutDigest = image.split('@')[0]!;
  const lastSegment = withoutDigest.split('/').pop() ?? '';
  return lastSegment.split(':')[0]!.toLowerCase();
}

export function databaseOf(image: string): DatabaseKind | undefined {
  const name = imageName(image);
  if (name === 'postgres' || name === 'postgresql') return { ...POSTGRES, image: name };
  if (name === 'mysql' || name === 'mariadb') return { ...MYSQL, image: name };
  return undefined;
}

/** The skeleton's query: valid SQL for the engine that returns no row, so expectedMinRows 1 fails. */
export function placeholderQuery(engine: Engine): string {
  const text = "'rehearsal: replace this query with one that proves your data is there'";
  return engine === 'postgres' ? `SELECT ${text} WHERE 1 = 0` : `SELECT ${text} FROM DUAL WHERE 1 = 0`;
}

function selects(selector: Record<string, string> | undefined, labels: Record<string, string>): boolean {
  const entries = Object.entries(selector ?? {});
  return entries.length > 0 && entries.every(([key, value]) => labels[key] === value);
}

/** The Service port that leads to `containerPort` of a container, through a Service selecting the pod. */
function servicePortFor(
  services: readonly ServiceFacts[],
  workload: WorkloadFacts,
  container: ContainerFacts,
  containerPort: number,
): { service: string; port: number } | undefined {
  const portName = container.ports.find((port) => port.containerPort === containerPort)?.name;
  for (const service of services) {
    if (service.type === 'ExternalName' || !selects(service.selector, workload.podLabels)) continue;
    for (const port of service.ports) {
      if ((port.protocol ?? 'TCP') !== 'TCP') continue;
      const target = port.targetPort ?? port.port;
      if (target === containerPort || (typeof target === 'string' && target === portName)) {
        return { service: service.name, port: port.port };
      }
    }
  }
  return undefined;
}

function containerPortNumber(container: ContainerFacts, port: number | string): number | undefined {
  if (typeof port === 'number') return port;
  if (/^[0-9]+$/.test(port)) return Number(port);
  return container.ports.find((candidate) => candidate.name === port)?.containerPort;
}

function podsSelector(workload: WorkloadFacts): Record<string, string> {
  const source = Object.keys(workload.selector).length > 0 ? workload.selector : workload.podLabels;
  return Object.fromEntries(
    Object.entries(source)
      .filter(([, value]) => value.length <= 63)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .slice(0, MAX_SELECTOR_ENTRIES),
  );
}

function envLookup(container: ContainerFacts, names: readonly string[]) {
  for (const name of names) {
    const found = container.env.find((variable) => variable.name === name);
    if (found) return found;
  }
  return undefined;
}

function sqlSkeleton(
  workload: WorkloadFacts,
  container: ContainerFacts,
  database: DatabaseKind,
  services: readonly ServiceFacts[],
  checkName: string,
): { check?: HealthCheck; note?: string; todo: string[] } {
  const target = servicePortFor(services, workload, container, database.port)
    ?? container.ports.map((port) => servicePortFor(services, workload, container, port.containerPort)).find(Boolean);
  if (!target) {
    return { note: `${workload.kind} ${workload.name} runs ${database.image}, but no Service leads to its port ${database.port}: no sqlQuery drafted`, todo: [] };
  }
  const todo = [`check ${checkName}: write sqlQuery.query and its expectation (a query that proves your data is there)`];
  const password = envLookup(container, database.passwordVars);
  const user = envLookup(container, database.userVars);
  const databaseName = envLookup(container, database.databaseVars)?.value;
  let secret: { name: string; usernameKey?: string; passwordKey?: string };
  if (password?.secretKeyRef) {
    secret = { name: password.secretKeyRef.name, passwordKey: password.secretKeyRef.key };
    if (user?.secretKeyRef?.name === password.secretKeyRef.name) secret.usernameKey = user.secretKeyRef.key;
    else todo.push(`check ${checkName}: Secret ${secret.name} must hold the user name under the key ${secret.usernameKey ?? 'username'} (or set credentialsSecret.usernameKey)`);
  } else if (container.envFromSecrets.length > 0 && !password) {
    const usernameVar = database.userVars[0]!;
    secret = { name: container.envFromSecrets[0]!, passwordKey: database.passwordVars[0]!, usernameKey: usernameVar };
    todo.push(`check ${checkName}: check that Secret ${secret.name} holds keys ${usernameVar} and ${database.passwordVars[0]!}`);
  } else {
    secret = { name: labelName([workload.name, 'credentials'], 253) };
    todo.push(`check ${checkName}: name the restored Secret holding the database credentials (credentialsSecret; ${secret.name} is a placeholder)`);
  }
  if (!databaseName) todo.push(`check ${checkName}: name the database (sqlQuery.database)`);
  const check: HealthCheck = {
    name: checkName,
    kind: 'sqlQuery',
    critical: true,
    timeout: '30s',
    sqlQuery: {
      engine: database.engine,
      service: target.service,
      port: target.port,
      database: (databaseName && databaseName.length <= 64 ? databaseName : undefined) ?? (user?.value || database.defaultUser),
      credentialsSecret: secret,
      query: placeholderQuery(database.engine),
      expectedMinRows: 1,
    },
  };
  return { check, todo };
}

/** Every check that can be drafted for `facts`, in the order podsReady, httpGet, sqlQuery, tcpSocket, at most MAX_CHECKS. */
export function draftChecks(facts: NamespaceFacts): DraftedChecks {
  const taken = new Set<string>();
  const pods: HealthCheck[] = [];
  const http: HealthCheck[] = [];
  const sql: HealthCheck[] = [];
  const tcp: HealthCheck[] = [];
  const notes: string[] = [];
  const todo: string[] = [];
  const workloads = [...facts.workloads].sort((a, b) => (a.kind + a.name < b.kind + b.name ? -1 : 1));
  const services = [...facts.services].sort((a, b) => (a.name < b.name ? -1 : 1));

  for (const workload of workloads) {
    if (workload.replicas === 0) {
      notes.push(`${workload.kind} ${workload.name} has 0 replicas: no checks drafted for it`);
      continue;
    }
    pods.push({
      name: uniqueName(labelName([workload.name, 'pods']), taken),
      kind: 'podsReady',
      podsReady: { selector: podsSelector(workload), minReady: workload.replicas ?? 1 },
    });
    const probed = new Set<string>();
    for (const container of workload.containers) {
      for (const probe of container.httpProbes) {
        const containerPort = containerPortNumber(container, probe.port);
        const where = `the ${probe.probe} probe of ${workload.kind} ${workload.name} container ${container.name}`;
        if (containerPort === undefined) {
          notes.push(`${where} names port "${String(probe.port)}", which the container does not declare: no httpGet drafted`);
          continue;
        }
        const target = servicePortFor(services, workload, container, containerPort);
        if (!target) {
          notes.push(`${where} (port ${containerPort}) is reached by no Service: no httpGet drafted`);
          continue;
        }
        const path = probe.path && probe.path.startsWith('/') ? probe.path : `/${probe.path ?? ''}`;
        const scheme = probe.scheme === 'HTTPS' ? 'https' : 'http';
        const key = `${target.service}:${target.port}${path}:${scheme}`;
        if (probed.has(key) || path.length > MAX_PATH_LENGTH) continue;
        probed.add(key);
        http.push({
          name: uniqueName(labelName([target.service, target.port, probe.probe === 'readiness' ? 'ready' : 'live']), taken),
          kind: 'httpGet',
          httpGet: { service: target.service, port: target.port, path, ...(scheme === 'https' ? { scheme } : {}) },
        });
      }
      const database = databaseOf(container.image);
      if (database) {
        const drafted = sqlSkeleton(workload, container, database, services, labelName([workload.name, 'data']));
        if (drafted.note) notes.push(drafted.note);
        if (drafted.check) {
          const name = uniqueName(drafted.check.name, taken);
          sql.push({ ...drafted.check, name });
          todo.push(...drafted.todo.map((line) => line.replace(`check ${drafted.check!.name}`, `check ${name}`)));
        }
      }
    }
  }

  for (const service of services) {
    if (service.type === 'ExternalName' || Object.keys(service.selector ?? {}).length === 0) {
      notes.push(`Service ${service.name} has no selector (or is ExternalName): no tcpSocket drafted`);
      continue;
    }
    for (const port of service.ports) {
      if ((port.protocol ?? 'TCP') !== 'TCP') continue;
      tcp.push({
        name: uniqueName(labelName([service.name, port.port, 'tcp']), taken),
        kind: 'tcpSocket',
        tcpSocket: { service: service.name, port: port.port },
      });
    }
  }

  const all = [...pods, ...http, ...sql, ...tcp];
  if (all.length > MAX_CHECKS) {
    const dropped = all.slice(MAX_CHECKS);
    notes.push(`${all.length} checks drafted, more than the ${MAX_CHECKS} a test may hold: left out ${dropped.map((check) => check.name).join(', ')}`);
    const kept = all.slice(0, MAX_CHECKS);
    const keptNames = new Set(kept.map((check) => check.name));
    return { checks: kept, notes, todo: todo.filter((line) => [...keptNames].some((name) => line.startsWith(`check ${name}:`))) };
  }
  return { checks: all, notes, todo };
}
