// Passwords are hashed with argon2id at the OWASP-recommended cost (19 MiB, 2 passes, 1 lane).
// @node-rs/argon2 ships working binaries per platform (the argon2 package's prebuilt binary
// crashed on this machine class).
import { hash, verify } from '@node-rs/argon2';

// algorithm 2 is Argon2id (the package's const enum cannot be imported under isolatedModules).
const OPTIONS = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const MIN_PASSWORD_LENGTH = 12;

export class PasswordHasher {
  // Verified against when the user does not exist, so that both failures take the same time.
  private readonly dummy = hash('no such user: equal timing', OPTIONS);

  hash(password: string): Promise<string> {
    return hash(password, OPTIONS);
  }

  async verify(stored: string | undefined, password: string): Promise<boolean> {
    try {
      return await verify(stored ?? (await this.dummy), password);
    } catch {
      return false;
    }
  }
}
