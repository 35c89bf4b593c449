// Delivery records and the run's events, table by table.
import { describe, expect, it } from '@jest/globals';
import {
  DEFAULT_RETRY_POLICY,
  nextDeliveryStep,
  outcomeOfStatus,
  parseDeliveryRecords,
  recordAttempt,
  type DeliveryRecord,
} from '../../../server/domain/notifications/deliveries.js';
import { resolvePreferences, runEvents } from '../../../server/domain/notifications/run-notification.js';
import { makeReport } from './fixtures.js';

const NOW = Date.parse('2026-03-15T12:00:00Z');
const at = (offsetMs: number): string => new Date(NOW + offsetMs).toISOString();

describe('nextDeliveryStep', () => {
  it.each<[string, DeliveryRecord | undefined, ReturnType<typeof nextDeliveryStep>]>([
    ['no record: first attempt', undefined, { action: 'send', attempt: 1 }],
    ['delivered', { state: 'delivered', attempts: 1, at: at(0) }, { action: 'done' }],
    ['failed', { state: 'failed', attempts: 5, at: at(0) }, { action: 'done' }],
    ['abandoned', { state: 'abandoned', attempts: 1, at: at(0) }, { action: 'done' }],
    ['left in flight by another process', { state: 'sending', attempts: 2, at: at(0) }, { action: 'abandon' }],
    ['retry due', { state: 'retrying', attempts: 2, at: at(-5), nextAt: at(-1) }, { action: 'send', attempt: 3 }],
    ['retry later', { state: 'retrying', attempts: 2, at: at(0), nextAt: at(4000) }, { action: 'wait', untilMs: NOW + 4000 }],
  ])('%s', (_name, record, step) => {
    expect(nextDeliveryStep(record, NOW)).toEqual(step);
  });
});

describe('outcomes and records', () => {
  it.each([
    [200, 'delivered'],
    [204, 'delivered'],
    [400, 'rejected'],
    [404, 'rejected'],
    [408, 'retryable'],
    [429, 'retryable'],
    [500, 'retryable'],
    [503, 'retryable'],
  ])('HTTP %i → %s', (status, kind) => {
    expect(outcomeOfStatus(status).kind).toBe(kind);
  });

  it('backs off 2s, 4s, 8s, 16s and fails after the fifth attempt', () => {
    const now = new Date(NOW);
    const retry = { kind: 'retryable' as const, detail: 'HTTP 503' };
    const delays = [1, 2, 3, 4].map((attempt) => Date.parse(recordAttempt(attempt, retry, now, DEFAULT_RETRY_POLICY).nextAt!) - NOW);
    expect(delays).toEqual([2000, 4000, 8000, 16000]);
    expect(recordAttempt(5, retry, now, DEFAULT_RETRY_POLICY)).toEqual({ state: 'failed', attempts: 5, at: at(0), detail: 'HTTP 503' });
    expect(recordAttempt(1, { kind: 'rejected', detail: 'HTTP 404' }, now, DEFAULT_RETRY_POLICY).state).toBe('failed');
  });

  it('reads back what it wrote, and treats garbage as no records', () => {
    const records = { 'a/failed': { state: 'delivered', attempts: 1, at: at(0) } };
    expect(parseDeliveryRecords(JSON.stringify(records))).toEqual(records);
    expect(parseDeliveryRecords('not json')).toEqual({});
    expect(parseDeliveryRecords('[1]')).toEqual({});
    expect(parseDeliveryRecords(JSON.stringify({ x: { state: 'bogus', attempts: 1, at: '' } }))).toEqual({});
  });
});

describe('run events and preferences', () => {
  const report = (result: 'pass' | 'partial' | 'fail', score: number, withinSLA?: boolean) => {
    const built = makeReport({ test: 't', completedAt: at(0), result, score });
    if (withinSLA !== undefined) built.spec.rto.withinSLA = withinSLA;
    return built;
  };
  it.each([
    ['fail', 30, undefined, undefined, ['failed']],
    ['partial', 80, undefined, 85, ['partial']],
    ['pass', 95, false, 96, ['succeeded', 'slaexceeded']],
    ['pass', 90, true, 100, ['succeeded']], // a drop of exactly 10 is not a regression
    ['partial', 79, undefined, 90, ['partial', 'regressed']],
  ] as const)('%s score %i, withinSLA %s, previous %s → %j', (result, score, withinSLA, previous, events) => {
    expect(runEvents(report(result, score, withinSLA), previous)).toEqual(events);
  });

  it('defaults to failures, SLA breaches and regressions; the test replaces the global default', () => {
    expect([...resolvePreferences({ channels: [] }, undefined).events]).toEqual(['failed', 'slaexceeded', 'regressed']);
    const fallback = { onSuccess: true, channels: [] };
    expect(resolvePreferences(undefined, fallback).events.has('succeeded')).toBe(true);
    expect(resolvePreferences({ onFailure: false, channels: [] }, fallback).events.has('succeeded')).toBe(false);
    expect(resolvePreferences(undefined, undefined).channels).toEqual([]);
  });
});
