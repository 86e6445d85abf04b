import path from 'node:path';
import { fileURLToPath } from 'node:url';

// src/platform (sources) and dist/platform (compiled) both sit two levels below the root, where
// api.yaml, cypher/, migrations/ and the Neo4j launcher are read from.
export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export function fromProjectRoot(...parts: string[]): string {
  return path.join(PROJECT_ROOT, ...parts);
}
