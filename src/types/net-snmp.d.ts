// net-snmp ships no type declarations: just what the SNMP connector uses.
declare module 'net-snmp' {
  import type { EventEmitter } from 'node:events';

  namespace snmp {
    interface Varbind {
      oid: string;
      type: number;
      value: unknown;
    }
    type Callback<T> = (error: Error | null, result: T) => void;
    interface Session extends EventEmitter {
      get(oids: string[], callback: Callback<Varbind[]>): Session;
      /** With no non-repeaters: one list of varbinds per requested OID. */
      getBulk(oids: string[], nonRepeaters: number, maxRepetitions: number, callback: Callback<Varbind[][]>): Session;
      close(): Session;
    }
    interface SessionOptions {
      port?: number;
      retries?: number;
      timeout?: number;
      backoff?: number;
      transport?: 'udp4' | 'udp6';
      version?: number;
      context?: string;
    }
    interface User {
      name: string;
      level: number;
      authProtocol?: number;
      authKey?: string;
      privProtocol?: number;
      privKey?: string;
    }
  }

  const snmp: {
    createSession(target: string, community: string, options: snmp.SessionOptions): snmp.Session;
    createV3Session(target: string, user: snmp.User, options: snmp.SessionOptions): snmp.Session;
    isVarbindError(varbind: snmp.Varbind): boolean;
    Version2c: number;
    SecurityLevel: Record<'noAuthNoPriv' | 'authNoPriv' | 'authPriv', number>;
    AuthProtocols: Record<'md5' | 'sha' | 'sha224' | 'sha256' | 'sha384' | 'sha512', number>;
    PrivProtocols: Record<'des' | 'aes' | 'aes256b' | 'aes256r', number>;
    ResponseInvalidCode: Record<'ECouldNotDecrypt' | 'EAuthFailure', number> & Record<number, string>;
    ErrorStatus: Record<number, string>;
  };
  export = snmp;
}
