// Passwords are hashed with argon2id at the OWASP-recommended cost (19 MiB, 2 passes, 1 lane).
import argon2 from 'argon2';

const OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const MIN_PASSWORD_LENGTH = 12;

export class PasswordHasher {
  // Verified against when the user does not exist, so that both failures take the same time.
  private readonly dummy = argon2.hash('no such user: equal timing', OPTIONS);

  hash(password: string): Promise<string> {
    return argon2.hash(password, OPTIONS);
  }

  async verify(hash: string | undefined, password: string): Promise<boolean> {
    try {
      return await argon2.verify(hash ?? (await this.dummy), password);
    } catch {
      return false;
    }
  }
}
