// The /proc reader behind real-velero.test.ts's "listens on 127.0.0.1 only" check: address decoding
// (rows as the kernel writes them, including the all-interfaces :8080 that upstream Velero opens)
// and finding this process's own loopback listener by its socket inode.
import { createServer, type Server } from 'node:net';
import { describe, expect, it } from '@jest/globals';
import { decodeAddress, isLoopback, processTree, tcpListeners } from '../helpers/listeners.js';

describe('decodeAddress / isLoopback', () => {
  it.each([
    ['0100007F', '127.0.0.1', true],
    ['00000000', '0.0.0.0', false],
    ['0101A8C0', '192.168.1.1', false],
    ['00000000000000000000000001000000', '0:0:0:0:0:0:0:1', true],
    ['00000000000000000000000000000000', '0:0:0:0:0:0:0:0', false],
    ['0000000000000000FFFF00000100007F', '::ffff:127.0.0.1', true],
    ['0000000000000000FFFF00000A00000A', '::ffff:10.0.0.10', false],
  ])('%s is %s (loopback: %s)', (hex, address, loopback) => {
    expect(decodeAddress(hex)).toBe(address);
    expect(isLoopback(address)).toBe(loopback);
  });
});

describe('tcpListeners', () => {
  it("finds this process's listener on 127.0.0.1 and its port", async () => {
    const server: Server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as { port: number }).port;
      const mine = tcpListeners(processTree(process.pid)).filter((entry) => entry.port === port);
      expect(mine).toEqual([{ pid: process.pid, address: '127.0.0.1', port, loopback: true }]);
      // Another process (pid 1) does not own it.
      expect(tcpListeners([1]).some((entry) => entry.port === port)).toBe(false);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
