// Exporters of the tests: UDP sockets bound to a loopback address of their own (127.0.0.0/8 is
// all loopback), so that the collector sees each as a different exporter.
import dgram from 'node:dgram';

export async function udpSender(address: string): Promise<dgram.Socket> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, address, resolve));
  return socket;
}

/** Sends each datagram once the previous one left. */
export async function sendDatagrams(socket: dgram.Socket, port: number, packets: Buffer[]): Promise<void> {
  for (const packet of packets) await new Promise<void>((resolve, reject) => socket.send(packet, port, '127.0.0.1', (e) => (e ? reject(e) : resolve())));
}
