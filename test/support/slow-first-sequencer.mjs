// The order in which jest hands test files to its workers: the files known to take longest first
// (SLOW_FILES, in that order), then the rest in jest's own order. Jest's own puts the slowest of
// its last run first, but a fresh clone has no such record, and then it goes by file size, which
// starts most lab files (a lab network's start, then scans over SSH to real daemons: one to four
// minutes each, though little of it CPU) halfway through the run of 70 store files and the web
// UI's lab file near its end. Started first, each worker on its own lab network, they are done
// while the short files still fill the workers, and the run ends on short files.
import Sequencer from '@jest/test-sequencer';
import path from 'node:path';

/**
 * Slowest first, by their wall times run two at a time (--maxWorkers=2) on the 2-core machine
 * beside other runs, 2026-11-28 (waits for a lab lock left out): SSH 132-254 s, CONTAINERS
 * 160-196 s, LIBVIRT 107-177 s, FINGERPRINT about 117 s, the worker-crash test's spawned workers
 * 105-124 s, the remote scanner's processes on a lab network 116-200 s, DHCP 109-124 s, DNS 109-117 s, LDAP about 61 s, the web UI's lab scans about 70 s each.
 */
const SLOW_FILES = [
  'test/discovery/ssh-discovery.test.ts',
  'test/discovery/container-discovery.test.ts',
  'test/discovery/libvirt-discovery.test.ts',
  'test/discovery/fingerprint-discovery.test.ts',
  'test/discovery/worker-crash.test.ts',
  'test/scanners/remote-scanner.test.ts',
  'test/discovery/dhcp-discovery.test.ts',
  'test/discovery/dns-discovery.test.ts',
  'test/web/web-ui-lab.test.ts',
  'test/web/web-ui-fingerprint.test.ts',
  'test/discovery/ldap-discovery.test.ts',
];

export default class SlowFirstSequencer extends Sequencer {
  sort(tests) {
    const rank = (test) => {
      const at = SLOW_FILES.indexOf(path.relative(test.context.config.rootDir, test.path).split(path.sep).join('/'));
      return at === -1 ? SLOW_FILES.length : at;
    };
    // A stable sort: the rest keep jest's order.
    return super.sort(tests).sort((a, b) => rank(a) - rank(b));
  }
}
