// The dated catalogue of end-of-life releases (catalogues/end-of-life.json), read once, with the
// regular expressions by which the feeds recognise a release: the product's name, then the cycle
// as a whole number (cycle 9 is not 9.1's prefix of 19, and 1.1.1 matches 1.1.1w). Both Neo4j
// (Java) and PostgreSQL (POSIX) read these expressions alike.
import { readFileSync } from 'node:fs';
import { fromProjectRoot } from '../../platform/project-root.js';

interface Release {
  product: string;
  cycle: string;
  /** The end of free security support, YYYY-MM-DD. */
  eol: string;
  /** A key of the catalogue's sources. */
  source: string;
}

export interface CatalogueRelease extends Release {
  /** The source's address. */
  sourceUrl: string;
  catalogueDate: string;
}

export interface OsRelease extends CatalogueRelease {
  /** Matches the lower-case "osName osVersion" of an asset. */
  pattern: string;
}

export interface SoftwareRelease extends CatalogueRelease {
  packages: string[];
  /** Matches a package's version (a Debian epoch allowed). */
  pattern: string;
}

export interface EndOfLifeCatalogue {
  compiled: string;
  operatingSystems: OsRelease[];
  software: SoftwareRelease[];
}

const CATALOGUE_FILE = fromProjectRoot('catalogues', 'end-of-life.json');
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const wholeCycle = (cycle: string) => `${escape(cycle)}([^0-9].*)?$`;

let loaded: EndOfLifeCatalogue | undefined;

/** The catalogue, read once (at start, by the insight service); a malformed file is an error. */
export function endOfLifeCatalogue(): EndOfLifeCatalogue {
  if (loaded) return loaded;
  const raw = JSON.parse(readFileSync(CATALOGUE_FILE, 'utf8')) as {
    compiled: string;
    sources: Record<string, string>;
    operatingSystems: (Release & { osName: string })[];
    software: (Release & { packages: string[] })[];
  };
  const dated = <T extends Release>(r: T) => {
    const sourceUrl = raw.sources[r.source];
    if (!sourceUrl || !/^https:\/\/\S+$/.test(sourceUrl) || !/^\d{4}-\d{2}-\d{2}$/.test(r.eol)) throw new Error(`catalogues/end-of-life.json: ${r.product} ${r.cycle} needs a known source (an https address) and an eol date (YYYY-MM-DD)`);
    return { product: r.product, cycle: r.cycle, eol: r.eol, source: r.source, sourceUrl, catalogueDate: raw.compiled };
  };
  loaded = {
    compiled: raw.compiled,
    operatingSystems: raw.operatingSystems.map((r) => ({ ...dated(r), pattern: `^${escape(r.osName.toLowerCase())}[^0-9]*${wholeCycle(r.cycle)}` })),
    software: raw.software.map((r) => ({ ...dated(r), packages: r.packages, pattern: `^([0-9]+:)?${wholeCycle(r.cycle)}` })),
  };
  return loaded;
}
