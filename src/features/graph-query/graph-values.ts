// What a Cypher result becomes in JSON: plain values as they are (temporal values as ISO 8601
// text), nodes, relationships and paths as tagged objects ($kind), and beside the rows the
// distinct nodes and relationships they hold, in the shape a graph view draws.
import neo4j, { type Node, type Path, type Relationship } from 'neo4j-driver';

export interface GraphNode {
  id: string;
  labels: string[];
  properties: Record<string, unknown>;
}

export interface GraphRelationship {
  id: string;
  type: string;
  startNode: string;
  endNode: string;
  properties: Record<string, unknown>;
}

export interface ResultGraph {
  nodes: GraphNode[];
  relationships: GraphRelationship[];
}

/** Collects the nodes and relationships met while encoding rows, once each. */
export class GraphCollector {
  private readonly nodes = new Map<string, GraphNode>();
  private readonly relationships = new Map<string, GraphRelationship>();

  node(node: Node): GraphNode {
    const id = node.elementId;
    let found = this.nodes.get(id);
    if (!found) {
      found = { id, labels: [...node.labels], properties: encodeMap(node.properties, this) };
      this.nodes.set(id, found);
    }
    return found;
  }

  relationship(relationship: Relationship): GraphRelationship {
    const id = relationship.elementId;
    let found = this.relationships.get(id);
    if (!found) {
      found = { id, type: relationship.type, startNode: relationship.startNodeElementId, endNode: relationship.endNodeElementId, properties: encodeMap(relationship.properties, this) };
      this.relationships.set(id, found);
    }
    return found;
  }

  graph(): ResultGraph {
    return { nodes: [...this.nodes.values()], relationships: [...this.relationships.values()] };
  }
}

function encodeMap(map: Record<string, unknown>, graph: GraphCollector): Record<string, unknown> {
  return Object.fromEntries(Object.entries(map).map(([k, v]) => [k, encodeValue(v, graph)]));
}

const isTemporal = (v: unknown) =>
  neo4j.isDate(v as never) || neo4j.isDateTime(v as never) || neo4j.isLocalDateTime(v as never) || neo4j.isLocalTime(v as never) || neo4j.isTime(v as never) || neo4j.isDuration(v as never);

/** One value of a row in JSON. */
export function encodeValue(value: unknown, graph: GraphCollector): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'object') return typeof value === 'bigint' ? value.toString() : value;
  if (Array.isArray(value)) return value.map((v) => encodeValue(v, graph));
  if (neo4j.isNode(value as never)) return { $kind: 'node', ...graph.node(value as Node) };
  if (neo4j.isRelationship(value as never)) return { $kind: 'relationship', ...graph.relationship(value as Relationship) };
  if (neo4j.isPath(value as never)) {
    const path = value as Path;
    return {
      $kind: 'path',
      nodes: [path.start, ...path.segments.map((s) => s.end)].map((n) => graph.node(n).id),
      relationships: path.segments.map((s) => graph.relationship(s.relationship).id),
    };
  }
  if (neo4j.isInt(value as never)) return (value as { toNumber(): number }).toNumber();
  if (isTemporal(value)) return String(value);
  if (neo4j.isPoint(value as never)) {
    const { srid, x, y, z } = value as { srid: unknown; x: number; y: number; z?: number };
    return { $kind: 'point', srid: Number(srid), x, y, ...(z === undefined ? {} : { z }) };
  }
  if (value instanceof Int8Array || value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  return encodeMap(value as Record<string, unknown>, graph);
}
