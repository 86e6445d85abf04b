// AES-256-GCM for credential secrets. The newest key version encrypts; every configured version
// decrypts. The associated data binds a ciphertext to its credential, field and key version, so a
// ciphertext copied to another credential or field does not decrypt.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export interface SealedSecret {
  keyVersion: number;
  iv: Buffer;
  ciphertext: Buffer;
  authTag: Buffer;
}

export class VaultCipher {
  private readonly currentVersion: number;

  constructor(private readonly keys: Map<number, Buffer>) {
    for (const [version, key] of keys) {
      if (key.length !== 32) throw new Error(`Vault key version ${version} is not 32 bytes long`);
    }
    this.currentVersion = Math.max(...keys.keys());
  }

  seal(credentialId: string, field: string, plaintext: string): SealedSecret {
    const keyVersion = this.currentVersion;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(keyVersion) as Buffer, iv);
    cipher.setAAD(associatedData(credentialId, field, keyVersion));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return { keyVersion, iv, ciphertext, authTag: cipher.getAuthTag() };
  }

  open(credentialId: string, field: string, sealed: SealedSecret): string {
    const key = this.keys.get(sealed.keyVersion);
    if (!key) throw new Error(`Vault key version ${sealed.keyVersion} is not configured`);
    const decipher = createDecipheriv('aes-256-gcm', key, sealed.iv);
    decipher.setAAD(associatedData(credentialId, field, sealed.keyVersion));
    decipher.setAuthTag(sealed.authTag);
    return Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]).toString('utf8');
  }
}

function associatedData(credentialId: string, field: string, keyVersion: number): Buffer {
  return Buffer.from(`credential:${credentialId}:${field}:v${keyVersion}`, 'utf8');
}
