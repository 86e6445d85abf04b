import { spawn } from 'node:child_process';

export default async function globalTeardown() {
  const handles = globalThis.__testStores;
  if (!handles) return;
  for (const stop of handles.stops.reverse()) await stop();
  // The stores' folders (thousands of files) are removed after jest has ended, not before: some
  // seconds of every run. Each run makes a folder of its own, so nothing waits for this one.
  if (handles.root) spawn('rm', ['-rf', '--', handles.root], { detached: true, stdio: 'ignore' }).unref();
}
