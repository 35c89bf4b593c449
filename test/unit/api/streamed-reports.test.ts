// A page of packed reports streamed over real HTTP (sendStreamedJson + writePackedReportsJson, as
// GET /api/v1/reports sends pages over 1,000): the body is the reports' JSON array in the order
// asked, plain or gzip, and when the client goes away mid-answer the server stops inflating instead
// of producing the rest of the page for nobody.
import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from '@jest/globals';
import express from 'express';
import { sendStreamedJson } from '../../../server/api/responses/streamed-json.js';
import { packedReportsJson, packReport, writePackedReportsJson, type PackedReport } from '../../../server/report-codec/packed-report.js';
import { makeReport } from '../domain/fixtures.js';

const reports = [1, 2, 3, 4].map((day) =>
  makeReport({ test: `app-${day}`, completedAt: `2026-03-0${day}T05:00:00Z`, result: day === 3 ? 'fail' : 'pass' }),
);
const packed = reports.map(packReport);
const servers: Server[] = [];

interface Served {
  base: string;
  /** Slices handed to the response so far, and the producer's end (resolves when it returns). */
  slices: () => number;
  finished: Promise<void>;
}

async function serve(list: readonly PackedReport[]): Promise<Served> {
  let slices = 0;
  let finish: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const app = express();
  app.get('/reports', (request, _response, next) => {
    sendStreamedJson(request, (write) =>
      writePackedReportsJson(list, (chunk) => {
        slices += 1;
        return write(chunk);
      }),
    )
      .then(finish)
      .catch(next);
  });
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise((resolve) => server.once('listening', resolve));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, slices: () => slices, finished };
}

afterAll(() => {
  for (const server of servers) server.close();
});

describe('a streamed page of packed reports', () => {
  it('is the JSON array of the reports in the order asked, plain and gzip', async () => {
    const order = Array.from({ length: 1_234 }, (_, i) => (i * 7) % packed.length);
    const list = order.map((i) => packed[i]!);
    const expected = await packedReportsJson(list);
    expect(JSON.parse(expected.toString('utf8'))).toEqual(order.map((i) => reports[i]));
    const served = await serve(list);
    const plain = await fetch(`${served.base}/reports`, { headers: { 'accept-encoding': 'identity' } });
    expect(Buffer.from(await plain.arrayBuffer()).equals(expected)).toBe(true);
    await served.finished;
    expect(served.slices()).toBe(13); // 100 reports a slice
    const zipped = await new Promise<Buffer>((resolve, reject) => {
      httpRequest(`${served.base}/reports`, { headers: { 'accept-encoding': 'gzip' } }, (response) => {
        expect(response.headers['content-encoding']).toBe('gzip');
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve(Buffer.concat(chunks)));
      })
        .on('error', reject)
        .end();
    });
    expect(gunzipSync(zipped).equals(expected)).toBe(true);
  });

  it('stops inflating when the client goes away', async () => {
    // ~90 MB of JSON: more than the loopback socket buffers hold, so the server must wait for the client.
    const list = Array.from({ length: 30_000 }, (_, i) => packed[i % packed.length]!);
    const total = Math.ceil(list.length / 100);
    const served = await serve(list);
    await new Promise<void>((resolve, reject) => {
      const client = httpRequest(`${served.base}/reports`, { headers: { 'accept-encoding': 'identity' } }, (response) => {
        response.once('data', () => {
          client.destroy();
          resolve();
        });
      });
      client.on('error', () => undefined);
      client.on('close', resolve);
      client.end();
      setTimeout(() => reject(new Error('no data')), 10_000).unref();
    });
    await served.finished;
    expect(served.slices()).toBeGreaterThan(0);
    expect(served.slices()).toBeLessThan(total / 2); // 63 of 300 here: what the socket buffers held
  });
});
