// test/integration/suite-needs.mjs decides when test/run-all.sh may start an integration suite on a
// fresh machine: a suite started before the tool it needs is built fails in a hook's timeout.
import { describe, expect, it } from '@jest/globals';
// @ts-expect-error -- plain JavaScript module without types (run-all.sh runs it with node)
import { BUILD_STEPS, lastStepOf, stepsOf } from '../../integration/suite-needs.mjs';

const suite = (name: string): string => `test/integration/${name}.test.ts`;

describe('suite-needs: the build steps an integration suite waits for', () => {
  it('lists the steps in the order test/setup.sh --builds runs them', async () => {
    const { readFileSync } = await import('node:fs');
    const setup = readFileSync('test/setup.sh', 'utf8');
    const timed = [...setup.matchAll(/^\s*timed (\S+) /gm)].map((match) => match[1]);
    expect(timed).toEqual(BUILD_STEPS);
  });

  it('a suite that imports no tool-building helper needs the control plane only', () => {
    expect([...stepsOf(suite('foundation'))]).toEqual(['control-plane']);
  });

  it('a suite using the engine fixture waits for Velero (its helper builds Velero on first use)', () => {
    expect(lastStepOf(suite('engine-runs'))).toBe('velero');
  });

  it('a real-node suite waits for the node and its images, and for CSI when it uses the CSI driver', () => {
    expect(stepsOf(suite('real-node'))).toEqual(new Set(['control-plane', 'node', 'node-images']));
    expect(lastStepOf(suite('real-node-csi-snapshot'))).toBe('csi');
  });

  it('the suites of the last tools wait for them', () => {
    expect(lastStepOf(suite('alert-rules'))).toBe('helm+promtool');
    // The OCI registry is built in the same step (build-go-tools.sh registry).
    expect(lastStepOf(suite('chart-registry'))).toBe('helm+promtool');
    // versitygw, the S3 server with Object Lock, has a step of its own; nothing else is needed.
    expect(stepsOf(suite('object-lock-store'))).toEqual(new Set(['control-plane', 'object-lock-s3']));
    expect(lastStepOf(suite('generated-clients'))).toBe('api-clients');
    expect(lastStepOf(suite('schemathesis'))).toBe('schemathesis');
  });

  it('the short soak needs the control plane only: its harness (in its import closure) runs the Velero simulator', () => {
    expect([...stepsOf(suite('soak-short'))]).toEqual(['control-plane']);
  });
});
