// describe() for the suites that need the test cluster's real node: kept apart from real-node.ts,
// which the demo (deploy/local) also imports outside Jest, where @jest/globals cannot load.
import { describe, it } from '@jest/globals';
import type { RealNodeStatus } from './real-node.js';

/** A banner no one scrolls past: the real-node tests are not running, and why. */
export function announceSkip(suite: string, reason: string): void {
  const line = '!'.repeat(100);
  console.warn(
    `\n${line}\n!! SKIPPED: ${suite} needs a real node, and this run has none:\n!!   ${reason}\n${line}\n`,
  );
}

/**
 * describe() for a suite that needs the real node: it runs when the node is up, and also when the
 * node should have started and did not (its tests then fail, saying why). Where this host cannot
 * run a node, the suite is skipped with the banner above and one skipped test naming the reason,
 * so the results say so and the file is not "a suite with no tests".
 */
export function describeOnRealNode(file: string, node: RealNodeStatus, title: string, body: () => void): void {
  if (node.available || node.failed) {
    describe(title, body);
    return;
  }
  announceSkip(file, node.reason);
  describe(title, () => {
    it.skip(`skipped: ${node.reason}`, () => undefined);
  });
}
