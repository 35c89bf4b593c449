// Which TCP ports a process (and its children, e.g. Velero's plugins) listens on, read from /proc:
// the process's socket inodes (/proc/PID/fd -> socket:[inode]) matched against the LISTEN rows of
// /proc/net/tcp and tcp6. Lets a test prove that a real server binds 127.0.0.1 only (the project's
// rule) without `ss` or root.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

export interface TcpListener {
  pid: number;
  address: string;
  port: number;
  loopback: boolean;
}

const LISTEN = '0A';

/** The process and all of its descendants (through /proc/PID/task/TID/children). */
export function processTree(pid: number): number[] {
  const tree = [pid];
  for (let index = 0; index < tree.length; index++) {
    const tasks = readdirOrEmpty(`/proc/${tree[index]}/task`);
    for (const task of tasks) {
      const children = readOrEmpty(`/proc/${tree[index]}/task/${task}/children`);
      for (const child of children.split(/\s+/).filter(Boolean)) tree.push(Number(child));
    }
  }
  return [...new Set(tree)];
}

/** The TCP sockets in LISTEN state that the given processes hold. */
export function tcpListeners(pids: number[]): TcpListener[] {
  const owner = new Map<string, number>();
  for (const pid of pids) {
    for (const fd of readdirOrEmpty(`/proc/${pid}/fd`)) {
      const target = readlinkOrEmpty(`/proc/${pid}/fd/${fd}`);
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode) owner.set(inode, pid);
    }
  }
  const listeners: TcpListener[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readOrEmpty(file).split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10 || fields[3] !== LISTEN) continue;
      const pid = owner.get(fields[9]!);
      if (pid === undefined) continue;
      const [hexAddress, hexPort] = fields[1]!.split(':') as [string, string];
      const address = decodeAddress(hexAddress);
      listeners.push({ pid, address, port: parseInt(hexPort, 16), loopback: isLoopback(address) });
    }
  }
  return listeners;
}

/** /proc/net/tcp* addresses are 32-bit words in host (little-endian) byte order. */
export function decodeAddress(hex: string): string {
  const bytes: number[] = [];
  for (let word = 0; word < hex.length; word += 8) {
    const chunk = hex.slice(word, word + 8);
    for (let byte = 6; byte >= 0; byte -= 2) bytes.push(parseInt(chunk.slice(byte, byte + 2), 16));
  }
  if (bytes.length === 4) return bytes.join('.');
  const isV4Mapped = bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  if (isV4Mapped) return `::ffff:${bytes.slice(12).join('.')}`;
  const groups: string[] = [];
  for (let index = 0; index < 16; index += 2) groups.push(((bytes[index]! << 8) | bytes[index + 1]!).toString(16));
  return groups.join(':'); // uncompressed (0:0:0:0:0:0:0:1), enough for a test's message
}

export function isLoopback(address: string): boolean {
  return (
    address.startsWith('127.') || address.startsWith('::ffff:127.') || address === '0:0:0:0:0:0:0:1'
  );
}

function readOrEmpty(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return ''; // the process (or the IPv6 table) is gone
  }
}

function readdirOrEmpty(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function readlinkOrEmpty(link: string): string {
  try {
    return readlinkSync(link);
  } catch {
    return '';
  }
}
