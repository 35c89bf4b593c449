// The order of the integration suites within a lane (test/run-all.sh): on a fresh machine the
// slow-built tools (test/setup.sh --builds) are still being built while the first suites run, so
// the suites that need none of them go first, those needing Velero next (built after the control
// plane and the node), those needing the tools built last after them. Within a rank, Jest's own
// order (failed first, then slowest first from its cache). Unit and contract keep Jest's order.
// Plain JavaScript: Jest loads the sequencer untransformed.
import { readFileSync } from 'node:fs';
import Sequencer from '@jest/test-sequencer';

const NEEDS_VELERO = /real-velero|startRealVelero|velero-in-cluster/;
const NEEDS_LATER_TOOLS = /build-go-tools|helpers\/manifests|helm|promtool|clients\.sh|schemathesis|csi-hostpath|build-csi/;

function rank(file) {
  if (!file.includes('/test/integration/')) return 0;
  const text = readFileSync(file, 'utf8');
  if (NEEDS_LATER_TOOLS.test(text)) return 2;
  if (NEEDS_VELERO.test(text)) return 1;
  return 0;
}

export default class BuildAwareSequencer extends Sequencer {
  async sort(tests) {
    const ordered = await super.sort(tests);
    const ranks = new Map(ordered.map((test) => [test.path, rank(test.path)]));
    // Array.prototype.sort is stable: Jest's order holds within a rank.
    return [...ordered].sort((a, b) => ranks.get(a.path) - ranks.get(b.path));
  }
}
