// describeHostKey against OpenSSH itself: the fingerprint pinned must read as `ssh-keygen -lf` prints it.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describeHostKey } from '../../src/features/discovery/connectors/ssh/ssh-connector.js';

describe('a host key described', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'host-key-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    ['ed25519', [], 'ssh-ed25519'],
    ['rsa', ['-b', '3072'], 'ssh-rsa'],
    ['ecdsa', ['-b', '256'], 'ecdsa-sha2-nistp256'],
    ['ecdsa', ['-b', '521'], 'ecdsa-sha2-nistp521'],
  ])('of a generated %s key has its type and the fingerprint that ssh-keygen -lf prints', (type, bits, keyType) => {
    const file = path.join(dir, `${keyType}`);
    execFileSync('ssh-keygen', ['-q', '-t', type, ...bits, '-N', '', '-C', 'test', '-f', file]);
    const [, blob] = readFileSync(`${file}.pub`, 'utf8').split(' ');
    const openssh = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', `${file}.pub`], { encoding: 'utf8' }).split(' ')[1];
    expect(openssh).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
    expect(describeHostKey(Buffer.from(blob as string, 'base64'))).toEqual({ keyType, fingerprint: openssh });
  });

  it('of a blob that is no key still gives a fingerprint, with no type beyond the bytes there are', () => {
    expect(describeHostKey(Buffer.alloc(0))).toEqual({ keyType: '', fingerprint: 'SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU' });
    expect(describeHostKey(Buffer.from([0, 0, 0, 200, 0x61, 0x62])).keyType).toBe('ab');
  });
});
