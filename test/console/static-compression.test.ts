// The console's files are compressed off the event loop once first asked for, not at start-up
// (issue 21: gzip-9 and brotli of every asset were a large part of the start-up); until then an
// asset goes out as is, and afterwards each encoding decodes to the very file.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import { CONSOLE_DIST } from '../../src/console/static-files.ts';
import { startConsoleGateway, type ConsoleGateway } from '../helpers/console.ts';

let tg: ConsoleGateway;
before(async () => {
  tg = await startConsoleGateway({ simulator: false });
});
after(() => tg.close());

test('a console script is sent as is until its compressed copies exist, then br and gzip decode to the file', async () => {
  const name = readdirSync(join(CONSOLE_DIST, 'assets')).find((f) => f.endsWith('.js'))!;
  const file = readFileSync(join(CONSOLE_DIST, 'assets', name), 'utf8');
  const get = (encoding: string) => fetch(`${tg.origin}/console/assets/${name}`, { headers: { 'accept-encoding': encoding } });

  const first = await get('br, gzip');
  assert.equal(first.status, 200);
  assert.equal(first.headers.get('content-encoding'), null, 'nothing was compressed at start-up');
  assert.equal(await first.text(), file);

  for (const encoding of ['br', 'gzip']) {
    let response = await get(encoding);
    // the copies are made on libuv's pool after the first request: wait for them
    for (let i = 0; i < 500 && response.headers.get('content-encoding') !== encoding; i++) {
      await response.arrayBuffer();
      await sleep(20);
      response = await get(encoding);
    }
    assert.equal(response.headers.get('content-encoding'), encoding);
    assert.equal(response.headers.get('vary'), 'accept-encoding');
    assert.equal(await response.text(), file, `${encoding} decodes to the file`);
  }
});
