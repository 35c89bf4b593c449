// Waits, without polling, until the engine has picked up a manual trigger: the API sets the
// trigger-request annotation, the engine copies the value to status.handledTrigger when it starts
// the run, and the informer delivers that update here. One informer handler serves every waiter
// (informer handlers cannot be removed, so a handler per request would leak).
import type { RestoreTest } from '../../domain/resources/resources.js';
import type { ApiCache } from '../ports.js';

interface Waiter {
  value: string;
  resolve: (test: RestoreTest | undefined) => void;
}

export interface TriggerWait {
  /** The test as soon as status.handledTrigger equals the value; undefined after the timeout. */
  readonly handled: Promise<RestoreTest | undefined>;
  cancel(): void;
}

export class TriggerWatch {
  private readonly waiters = new Map<string, Set<Waiter>>();

  constructor(private readonly cache: Pick<ApiCache, 'getTest' | 'onTestChange'>) {
    cache.onTestChange((_event, _key, current) => {
      if (current) this.notify(current);
    });
  }

  get pending(): number {
    let count = 0;
    for (const set of this.waiters.values()) count += set.size;
    return count;
  }

  /** Register before writing the annotation, so an update that arrives first is not missed. */
  waitFor(namespace: string, name: string, value: string, timeoutMs: number): TriggerWait {
    const key = `${namespace}/${name}`;
    let settle: (test: RestoreTest | undefined) => void = () => {};
    const handled = new Promise<RestoreTest | undefined>((resolve) => {
      let timer: NodeJS.Timeout | undefined = undefined;
      const waiter: Waiter = {
        value,
        resolve: (test) => {
          clearTimeout(timer);
          const set = this.waiters.get(key);
          set?.delete(waiter);
          if (set && set.size === 0) this.waiters.delete(key);
          resolve(test);
        },
      };
      settle = waiter.resolve;
      const set = this.waiters.get(key) ?? new Set<Waiter>();
      set.add(waiter);
      this.waiters.set(key, set);
      timer = setTimeout(() => waiter.resolve(undefined), timeoutMs);
      timer.unref?.();
    });
    return {
      handled,
      cancel: () => settle(undefined),
    };
  }

  /** Settles the waiters of a test if the cache already shows their value handled. */
  check(namespace: string, name: string): void {
    const test = this.cache.getTest(namespace, name);
    if (test) this.notify(test);
  }

  private notify(test: RestoreTest): void {
    const set = this.waiters.get(`${test.metadata.namespace ?? ''}/${test.metadata.name}`);
    if (!set) return;
    const handledTrigger = test.status?.handledTrigger;
    if (handledTrigger === undefined) return;
    for (const waiter of [...set]) if (waiter.value === handledTrigger) waiter.resolve(test);
  }
}
