// A pass_persist extension for the test snmpd (snmpd.conf(5), "pass_persist"): serves the OIDs of
// a JSON data file ({ "1.3.6.1...": { "type": "integer" | "string" | "octet" | ..., "value": ... } })
// so that a real snmpd can answer MIBs it does not implement (BRIDGE-MIB, ENTITY-MIB, Printer-MIB).
// Protocol: PING → PONG; get/getnext + OID → OID, type, value or NONE; set + OID + value → not-writable.
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const data = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const parse = (oid) => oid.replace(/^\./, '').split('.').map(Number);
const compare = (a, b) => {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
};
const entries = Object.entries(data)
  .map(([oid, varbind]) => ({ oid: parse(oid), ...varbind }))
  .sort((a, b) => compare(a.oid, b.oid));

const answer = (entry) => (entry ? `.${entry.oid.join('.')}\n${entry.type}\n${entry.value}\n` : 'NONE\n');

const lines = createInterface({ input: process.stdin });
let pending = [];
lines.on('line', (line) => {
  pending.push(line.trim());
  const [command, oid] = pending;
  if (command === 'PING') {
    process.stdout.write('PONG\n');
  } else if (command === 'get' && oid !== undefined) {
    const wanted = parse(oid);
    process.stdout.write(answer(entries.find((e) => compare(e.oid, wanted) === 0)));
  } else if (command === 'getnext' && oid !== undefined) {
    const after = parse(oid);
    process.stdout.write(answer(entries.find((e) => compare(e.oid, after) > 0)));
  } else if (command === 'set' && pending.length === 3) {
    process.stdout.write('not-writable\n');
  } else if (['get', 'getnext', 'set'].includes(command)) {
    return; // the rest of the request is on the next line(s)
  }
  pending = [];
});
// snmpd closes the pipe when it stops: leave with it.
lines.on('close', () => process.exit(0));
