// The tar listing the packaged-chart tests rely on (test/helpers/tar-entries.ts) must see links as
// links, or "the chart archive holds no symlink" would pass on any archive. Archives are written by
// the system's GNU tar here, the ones under test by Helm (Go's archive/tar): both header styles.
import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { tarEntries } from '../../helpers/tar-entries.js';

function archiveOf(build: (dir: string) => void, tarArgs: string[] = []): Buffer {
  const work = mkdtempSync(path.join(tmpdir(), 'tar-entries-'));
  try {
    const dir = path.join(work, 'chart');
    mkdirSync(dir);
    build(dir);
    const file = path.join(work, 'chart.tgz');
    execFileSync('tar', ['-czf', file, ...tarArgs, '-C', work, 'chart']);
    return readFileSync(file);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

describe('tarEntries', () => {
  it('lists files with their bytes, directories, and links with their targets', () => {
    const archive = archiveOf((dir) => {
      writeFileSync(path.join(dir, 'Chart.yaml'), 'name: rehearsal\n');
      mkdirSync(path.join(dir, 'crds'));
      symlinkSync('../../../crds/x.yaml', path.join(dir, 'crds', 'x.yaml'));
    });
    const entries = tarEntries(archive).map(({ path: name, type, linkTarget, data }) => ({ name, type, linkTarget, text: data.toString('utf8') }));
    expect(entries).toEqual(
      expect.arrayContaining([
        { name: 'chart/', type: 'directory', linkTarget: undefined, text: '' },
        { name: 'chart/Chart.yaml', type: 'file', linkTarget: undefined, text: 'name: rehearsal\n' },
        { name: 'chart/crds/x.yaml', type: 'symlink', linkTarget: '../../../crds/x.yaml', text: '' },
      ]),
    );
    expect(entries).toHaveLength(4);
  });

  it('reads names longer than a ustar header holds (GNU long names and PAX records)', () => {
    const long = `${'d'.repeat(90)}/${'f'.repeat(120)}.yaml`;
    for (const format of ['gnu', 'posix']) {
      const archive = archiveOf((dir) => {
        mkdirSync(path.join(dir, 'd'.repeat(90)));
        writeFileSync(path.join(dir, long), 'x');
      }, [`--format=${format}`]);
      const file = tarEntries(archive).find((entry) => entry.type === 'file');
      expect({ format, path: file?.path, data: file?.data.toString() }).toEqual({ format, path: `chart/${long}`, data: 'x' });
    }
  });
});
