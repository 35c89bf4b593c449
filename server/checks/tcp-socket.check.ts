// tcpSocket: a TCP connection to the Service port is established within the check's timeout.
// Connecting is the assertion, so a refused, unreachable or silent port is `fail`; only a target
// that cannot be resolved (configuration) is `error`. The socket is closed right after connecting;
// nothing is sent.

import { Socket } from 'node:net';
import type { CheckExecutor, CheckOutcome } from './check.js';
import { describeError, error, fail, isConnectionRefused, isOutcome, pass, requireBlock, timedOut } from './check.js';
import { formatHostPort, type ResolvedTarget } from './target-resolver.js';

function explainSocketError(thrown: unknown): string {
  const code = (thrown as { code?: unknown } | undefined)?.code;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused (ECONNREFUSED)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `host name not resolved (${code})`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `host unreachable (${code})`;
    default:
      return describeError(thrown);
  }
}

export const runTcpSocketCheck: CheckExecutor = async (check, context) => {
  const spec = requireBlock(check, 'tcpSocket');
  if (isOutcome(spec)) return spec;
  let target: ResolvedTarget;
  try {
    target = context.targets.resolve({
      namespace: context.namespace,
      service: spec.service,
      port: spec.port,
    });
  } catch (thrown) {
    return error(`cannot resolve the probe target: ${describeError(thrown)}`);
  }
  const address = formatHostPort(target);

  return new Promise<CheckOutcome>((resolve) => {
    const socket = new Socket();
    const started = Date.now();
    const finish = (outcome: CheckOutcome): void => {
      context.signal.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(outcome);
    };
    const onAbort = (): void => finish(fail(`TCP ${address}: ${timedOut(context, 'no connection')}`));
    if (context.signal.aborted) {
      onAbort();
      return;
    }
    context.signal.addEventListener('abort', onAbort, { once: true });
    socket.once('connect', () =>
      finish(pass(`TCP ${address} accepted a connection in ${Date.now() - started}ms`)),
    );
    socket.once('error', (thrown) =>
      finish({ ...fail(`TCP ${address}: ${explainSocketError(thrown)}`), ...(isConnectionRefused(thrown) ? { refused: true } : {}) }),
    );
    socket.connect({ host: target.host, port: target.port });
  });
};
