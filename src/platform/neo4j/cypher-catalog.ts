// Cypher lives in cypher/, one statement per file, loaded once at boot. A repository asks for its
// statements when it is constructed, so a missing file stops the service at start-up.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Driver } from 'neo4j-driver';
import { fromProjectRoot } from '../project-root.js';

const CYPHER_DIR = fromProjectRoot('cypher');
const SCHEMA_DIR = 'schema';

function listCypherFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.cypher'))
    .map((e) => path.relative(CYPHER_DIR, path.join(e.parentPath, e.name)))
    .sort();
}

/**
 * A statement as it is sent: without its comment lines, indentation and blank lines. Every read
 * sends its text, and the driver writes a message in 1,400-byte pieces, one socket write each:
 * the comments alone made the page statement one write longer.
 */
function compact(text: string): string {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('//'))
    .join('\n');
}

export class CypherCatalog {
  private readonly statements = new Map<string, string>();

  constructor() {
    const dir = CYPHER_DIR;
    const partials = new Map<string, string>();
    for (const file of listCypherFiles(dir)) {
      if (file.startsWith(`${SCHEMA_DIR}${path.sep}`)) continue;
      const name = file.replace(/\.cypher$/, '').split(path.sep).join('/');
      const text = compact(readFileSync(path.join(dir, file), 'utf8'));
      if (path.basename(name).startsWith('_')) partials.set(name, text);
      else this.statements.set(name, text);
    }
    // A partial (a file whose name starts with _) is written into statements as {{> name}}: one
    // text for what several statements share.
    for (const [name, text] of this.statements) {
      this.statements.set(name, text.replace(/\{\{>\s*([\w/-]+)\s*\}\}/g, (_, partial: string) => {
        const found = partials.get(partial);
        if (found === undefined) throw new Error(`Cypher statement "${name}" includes the missing partial cypher/${partial}.cypher`);
        return found;
      }));
    }
  }

  /** The text of a statement such as 'assets/find-assets'; throws for an unknown name. */
  get(name: string): string {
    const text = this.statements.get(name);
    if (text === undefined) throw new Error(`Cypher statement "${name}" is missing: expected cypher/${name}.cypher`);
    return text;
  }

  /**
   * A statement with its {{placeholders}} filled by fragments of Cypher chosen in code (fixed
   * predicates, allow-listed sort keys), never by request text; values still go in parameters.
   */
  render(name: string, fragments: Record<string, string>): string {
    return this.get(name).replace(/\{\{(\w+)\}\}/g, (_, key: string) => {
      const fragment = fragments[key];
      if (fragment === undefined) throw new Error(`Cypher statement "${name}" needs the fragment {{${key}}}`);
      return fragment;
    });
  }

  /** Checks at boot that every statement a repository will use exists. */
  require(...names: string[]): void {
    for (const name of names) this.get(name);
  }
}

/**
 * Applies cypher/schema/*.cypher in file order. Each statement must be idempotent
 * (CREATE ... IF NOT EXISTS); statements are separated by a semicolon at the end of a line.
 */
export async function applyGraphSchema(driver: Driver, database: string): Promise<number> {
  const dir = path.join(CYPHER_DIR, SCHEMA_DIR);
  const statements = listCypherFiles(dir)
    .flatMap((file) => readFileSync(path.join(CYPHER_DIR, file), 'utf8').split(/;\s*$/m))
    .map((s) => s.replace(/^\s*\/\/.*$/gm, '').trim())
    .filter(Boolean);
  const session = driver.session({ database });
  try {
    for (const statement of statements) await session.run(statement);
    await session.run('CALL db.awaitIndexes(300)');
  } finally {
    await session.close();
  }
  return statements.length;
}
