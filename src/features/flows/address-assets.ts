// A flow end meets the inventory: the asset that holds each address, by the identity index
// (IP_ADDRESS, the value normalised as identity normalises it). Loopback and link-local addresses
// identify no asset.
import { normaliseIp, type IdentityLookup, type KnownIdentifier } from '../inventory/asset-identity.js';

export async function assetsAtAddresses(identities: IdentityLookup, addresses: string[]): Promise<Map<string, KnownIdentifier>> {
  const normalised = new Map(addresses.flatMap((a) => {
    const ip = normaliseIp(a);
    return ip ? [[a, ip] as const] : [];
  }));
  const known = await identities.lookup([...new Set(normalised.values())].map((value) => ({ rule: 'IP_ADDRESS' as const, value })));
  return new Map([...normalised].flatMap(([address, ip]) => {
    const hit = known.get(`IP_ADDRESS:${ip}`);
    return hit ? [[address, hit] as const] : [];
  }));
}
