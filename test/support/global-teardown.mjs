import { rmSync } from 'node:fs';

export default async function globalTeardown() {
  const handles = globalThis.__testStores;
  if (!handles) return;
  for (const stop of handles.stops.reverse()) await stop();
  if (handles.root) rmSync(handles.root, { recursive: true, force: true });
}
