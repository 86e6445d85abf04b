// Debian's nmap as a child process: service and version detection (-sV), and where we are root a
// SYN scan, the UDP ports and OS detection (-O), its report as XML on stdout (-oX -). Bounded:
// killed at its time-out, at the host's deadline, on the run's cancel, and once its report passes
// MAX_REPORT_OCTETS. The address is given after `--`, checked as an IP address by the caller, so
// it can never be read as an option. Never throws for what nmap or the host does.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';

/** The octets nmap's XML report may bring for one host (a host with a few hundred open ports and their scripts is far below). */
export const MAX_REPORT_OCTETS = 4 * 1024 * 1024;
/** nmap's table of ports and how often each was found open (its --top-ports list). */
const NMAP_SERVICES = '/usr/share/nmap/nmap-services';

export interface NmapOptions {
  /** The nmap program (service.discovery.nmap-path). */
  program: string;
  address: string;
  tcpPorts: number[];
  /** Scanned only where we are root (a UDP scan needs raw sockets). */
  udpPorts: number[];
  /** -sV --version-intensity, 0 (light) to 9 (every probe). */
  intensity: number;
  /** OS detection (-O), only where we are root. */
  osDetection: boolean;
  timeoutMs: number;
  signal?: AbortSignal;
}

export type NmapRun =
  | { xml: string; command: string }
  | { failure: 'NOT_INSTALLED' | 'TIMEOUT' | 'TOO_LARGE' | 'CANCELLED' | 'FAILED'; message: string; command: string };

const privileged = () => process.getuid?.() === 0;

/** nmap's arguments for one address: raw scans, UDP and OS detection where we are root, a TCP connect scan elsewhere. */
export function nmapArguments(options: Omit<NmapOptions, 'program' | 'signal'>): string[] {
  const root = privileged();
  const udp = root ? options.udpPorts : [];
  const ports = [...(options.tcpPorts.length ? [`T:${options.tcpPorts.join(',')}`] : []), ...(udp.length ? [`U:${udp.join(',')}`] : [])];
  return [
    '-oX', '-', '-n', '-Pn', '-sV', '--version-intensity', String(options.intensity),
    ...(root ? ['-sS', ...(udp.length ? ['-sU'] : []), ...(options.osDetection ? ['-O'] : [])] : ['-sT']),
    // The SNMP agent's sysDescr, where it answers the community "public" (a switch that says what it is).
    ...(udp.includes(161) ? ['--script', 'snmp-sysdescr'] : []),
    // nmap's own host time-out ends its work before ours kills it (it looks at its clock only now and then): its report then says so.
    '--host-timeout', `${Math.max(1, Math.floor((options.timeoutMs * 0.75) / 1000))}s`,
    '-p', ports.join(','),
    '--', options.address,
  ];
}

/** nmap's table of services: each port's usual service name, and the TCP ports by how often nmap finds them open. */
export interface NmapServiceTable {
  /** `tcp/631` → ipp. */
  names: Map<string, string>;
  /** The most frequent first (nmap's --top-ports order). */
  topTcpPorts: number[];
}

let table: Promise<NmapServiceTable> | undefined;

/** nmap-services, read once (an empty table where it cannot be read: nmap is then missing too). */
export function nmapServiceTable(): Promise<NmapServiceTable> {
  table ??= readFile(NMAP_SERVICES, 'utf8')
    .catch(() => '')
    .then((text) => {
      const names = new Map<string, string>();
      const tcp: { port: number; frequency: number }[] = [];
      for (const line of text.split('\n')) {
        const match = /^(\S+)\s+(\d+)\/(tcp|udp)\s+([0-9.]+)/.exec(line);
        if (!match) continue;
        const [, name = '', port = '', protocol = '', frequency = ''] = match;
        names.set(`${protocol}/${port}`, name);
        if (protocol === 'tcp') tcp.push({ port: Number(port), frequency: Number(frequency) });
      }
      return { names, topTcpPorts: tcp.sort((a, b) => b.frequency - a.frequency || a.port - b.port).map((p) => p.port) };
    });
  return table;
}

export async function runNmap(options: NmapOptions): Promise<NmapRun> {
  const args = nmapArguments(options);
  const command = `${options.program} ${args.join(' ')}`;
  if (options.signal?.aborted) return { failure: 'CANCELLED', message: 'The run was cancelled before nmap started.', command };
  return new Promise((resolve) => {
    const child = spawn(options.program, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let octets = 0;
    let stderr = '';
    let ended: NmapRun | undefined;
    const end = (result: NmapRun) => {
      if (ended) return;
      ended = result;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', cancel);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      resolve(result);
    };
    const timer = setTimeout(() => end({ failure: 'TIMEOUT', message: `nmap did not finish within ${options.timeoutMs} ms; it was stopped.`, command }), options.timeoutMs);
    const cancel = () => end({ failure: 'CANCELLED', message: 'The run was cancelled; nmap was stopped.', command });
    options.signal?.addEventListener('abort', cancel, { once: true });
    child.stdout.on('data', (chunk: Buffer) => {
      octets += chunk.length;
      if (octets > MAX_REPORT_OCTETS) end({ failure: 'TOO_LARGE', message: `nmap's report passed ${MAX_REPORT_OCTETS} octets; it was stopped.`, command });
      else chunks.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 4000) stderr += chunk.toString('utf8');
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      end(error.code === 'ENOENT' || error.code === 'EACCES'
        ? { failure: 'NOT_INSTALLED', message: `${options.program} could not be run (${error.code}): nmap is not installed there.`, command }
        : { failure: 'FAILED', message: `nmap could not be started: ${error.message}`, command });
    });
    child.on('close', (code, signal) => {
      if (code === 0) end({ xml: Buffer.concat(chunks).toString('utf8'), command });
      else end({ failure: 'FAILED', message: `nmap ended with ${signal ?? `exit code ${code}`}: ${stderr.trim().split('\n').slice(-3).join(' ').slice(0, 500)}`, command });
    });
  });
}
