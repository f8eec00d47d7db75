// A node:test reporter that writes how long each test file took (the sum of its top-level tests and suites, in ms) as one JSON object; run-tests.mjs uses it to start the longest files first next time.
export default async function* fileTimes(source) {
  const times = {};
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const d = event.data;
    if (d.nesting !== 0 || !d.file) continue;
    times[d.file] = (times[d.file] ?? 0) + (d.details?.duration_ms ?? 0);
  }
  yield `${JSON.stringify(times)}\n`;
}
