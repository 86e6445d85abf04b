// The scan error codes of DNS discovery: each one's meaning and the diagnosis rule that explains a
// failed run it leads (scan-error.ts). Codes keep their meaning once released.
import type { ScanErrorDefinition } from '../../scan-error.js';
import type { SharedErrorCode } from '../../shared-scan-errors.js';

export const DNS_ERRORS = {
  DNS_TRANSFER_REFUSED: {
    description: 'The DNS server did not give a zone (REFUSED, NOTAUTH, NXDOMAIN, SERVFAIL or another response code to the AXFR request).',
    explanation: {
      summary: 'The DNS server would not transfer a zone the target names: the scan loaded no names (a partial read changes none).',
      causes: [
        "The zone's transfer is not allowed to the worker's address, or only with a TSIG key (allow-transfer in BIND).",
        'The server is not authoritative for the zone (the name is misspelt, or the zone lives on another server).',
        'The zone failed to load on the server (SERVFAIL).',
      ],
      actions: [
        'Try the transfer from the worker host: dig @SERVER ZONE AXFR (with -y hmac-sha256:KEYNAME:SECRET when a key is needed).',
        "Allow the transfer to the worker's address or to a TSIG key (allow-transfer { key NAME; };), and give the key as a DNS_TSIG credential of the target.",
        "Correct the zone names in the target's settings.DNS.zones.",
      ],
      confidence: 'HIGH',
    },
  },
  DNS_TSIG_REFUSED: {
    description: 'The DNS server refused the TSIG key of every DNS_TSIG credential offered (BADKEY, BADSIG or BADTIME).',
    explanation: {
      summary: "The DNS server refused the TSIG key offered for a zone's transfer: the scan loaded no names.",
      causes: [
        "The key's secret is not the server's (BADSIG), or the server knows no key of that name (BADKEY).",
        "The worker's clock and the server's differ by more than the fudge of 300 seconds (BADTIME).",
      ],
      actions: [
        "Compare the credential's key name and secret with the key statement of the server (named.conf: key NAME { algorithm hmac-sha256; secret ...; };).",
        'Check the clocks of the worker and of the DNS server (NTP).',
      ],
      confidence: 'HIGH',
    },
  },
  DNS_TSIG_UNVERIFIED: {
    description: "An answer's TSIG signature was missing or did not verify; the scan loads no names.",
    explanation: {
      summary: "An answer to a signed transfer was not signed with the credential's key, or its signature did not verify: the scan loaded no names.",
      causes: [
        'Something between the worker and the DNS server altered or forged the answers.',
        'The server signs with another key of the same name, or does not sign the last message of the transfer.',
      ],
      actions: [
        'Repeat the transfer with dig -y from the worker host and look at its "TSIG" verification.',
        'Treat an answer that does not verify as a security incident until it is explained.',
      ],
      confidence: 'MEDIUM',
    },
  },
  DNS_MALFORMED_ANSWER: {
    description: 'The DNS server answered with a message that does not parse (a length, a name or a compression pointer out of bounds); the scan loads no names.',
    explanation: {
      summary: 'The address answered the zone transfer with messages that are not well-formed DNS: the scan loaded no names.',
      causes: [
        "The target's DNS port is another service than a DNS server.",
        'The DNS server or a middlebox mangles the answers.',
      ],
      actions: [
        'Try the transfer with dig @SERVER -p PORT ZONE AXFR from the worker host.',
        "Correct the target's DNS port.",
      ],
      confidence: 'MEDIUM',
    },
  },
  DNS_TRANSFER_INCOMPLETE: {
    description: 'A zone transfer stopped before its end (the server closed the connection or went silent); the scan loads no names, and changes none.',
    explanation: {
      summary: 'A zone transfer stopped before its end: the scan loaded no names, and the assets keep those of the last complete read.',
      causes: ['The server closed the connection or stopped sending (overload, a restart, a transfer quota).', 'A firewall cut a long-lived connection.'],
      actions: ["Scan again; raise the target's settings.DNS.timeoutMs for a slow server.", 'Check the server log for ended transfers (BIND: transfer-out messages, transfers-out quota).'],
      confidence: 'MEDIUM',
    },
  },
  DNS_ZONE_TRUNCATED: {
    description: 'The zones bring more records than settings.DNS.maxRecords, all together (or a transfer more octets than the limit); the scan loads no names, and changes none.',
    explanation: {
      summary: 'The zones are larger than the limit of the target: the scan loaded no names, and the assets keep those of the last complete read.',
      causes: ['The zones have more records, all together, than settings.DNS.maxRecords.', 'The transfer brought more than 64 MiB (a zone of very many or very large records).'],
      actions: ["Raise the target's settings.DNS.maxRecords (up to 1,000,000).", 'Name smaller zones (delegated subzones) in settings.DNS.zones.'],
      confidence: 'HIGH',
    },
  },
  DNS_RECORD_NOT_ALIVE: {
    description: 'An A or AAAA record points at an address where nothing answered the probe (no port answered, no echo): a stale record, or a host that is down.',
    explanation: {
      summary: 'A zone names addresses where nothing answers: stale records, or hosts that are down.',
      causes: [
        'The host behind the name was retired or renumbered, and its record was left in the zone.',
        'The host is powered off, or a firewall drops the probe (TCP connects to service.discovery.sweep-ports, and an ICMP echo).',
      ],
      actions: [
        'Check whether the host exists; remove the stale record from the zone.',
        'If the host is up, allow the probe from the worker, or add a port it listens on to service.discovery.sweep-ports.',
      ],
      confidence: 'MEDIUM',
    },
  },
} as const satisfies Record<string, ScanErrorDefinition>;

/** The codes its connector raises: its own and the shared ones. */
export type DnsErrorCode = SharedErrorCode | keyof typeof DNS_ERRORS;
