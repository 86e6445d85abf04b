// What the connectors that read one program's output over SSH as an estate share (LIBVIRT, CONTAINERS):
// log in and run their script through the SSH connector, then tell apart a host without the program,
// a program that could not answer, and a read (complete or not) mapped to an estate.
import type { ConnectorResult, EstateObservation, ScanMethod } from '../../host-observation.js';
import type { RunError } from '../../run-record.js';
import type { CollectRequest, ConnectorEnvironment } from '../connector.js';
import { sections } from './linux-parsers.js';
import { runOverSsh } from './ssh-connector.js';
import { sshOptions } from './ssh.js';

/** A script whose parts are headed by `mark` + a name: "absent" (no program), "unreachable" (it could not answer), then the read. */
export interface SshEstateRead<Code extends string> {
  method: ScanMethod;
  /** The command's name in error stages and messages. */
  name: string;
  script: { command: string; mark: string };
  sectionNames: RegExp;
  /** The part that shows the program answered: without it (a time-out), nothing was read. */
  answered: string;
  codes: { absent: Code; unreachable: Code; incomplete: Code };
  messages: { absent: string; unreachable: (parts: Map<string, string>) => string; incomplete: string };
  toEstate(output: string): EstateObservation;
}

export async function readEstateOverSsh<Code extends string>({ address, credentials, port, deadline }: CollectRequest, { config, hostState }: ConnectorEnvironment, read: SshEstateRead<Code>): Promise<ConnectorResult> {
  const { output, errors, credentialId } = await runOverSsh(read.method, address, credentials, read.name, read.script.command, sshOptions(config, port, deadline), hostState);
  const got = credentialId ? { credentialId } : {};
  const record = (code: Code, message: string): RunError => ({ address, method: read.method, stage: `collect:${read.name}`, code, message });
  if (output === undefined) return { errors };
  const parts = sections(output, read.script.mark, read.sectionNames);
  if (parts.has('absent')) return { errors: [...errors, record(read.codes.absent, read.messages.absent)], ...got };
  if (parts.has('unreachable')) return { errors: [...errors, record(read.codes.unreachable, read.messages.unreachable(parts))], ...got };
  if (!parts.has(read.answered)) return { errors, ...got };
  const estate = read.toEstate(output);
  // A time-out or the output limit says already why the read is incomplete.
  if (!estate.complete && errors.length === 0) errors.push(record(read.codes.incomplete, read.messages.incomplete));
  return { estate, errors, ...got };
}
