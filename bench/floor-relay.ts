// The least a gateway that bills every call must do beyond the bare relay (bench/bare-relay.ts),
// written as plainly and cheaply as this author could: a yardstick for what the features cost on
// their own, whoever writes them. Per request it
//   - parses the JSON body and checks `model` and `messages` (400 otherwise),
//   - hashes the bearer key (SHA-256) and finds its account in a Map (401), checks the balance (402),
//   - forwards the client's bytes unchanged with the upstream's key,
//   - finds the usage in the answer: JSON.parse of a whole body, or of the one SSE event that
//     carries it (a stream's chunks are relayed as they arrive),
//   - charges the account in memory, queues a journal row and a usage row,
//   - and buffers one JSON access-log line (written per 8 KB with an asynchronous write).
// Every 250 ms the queued rows go to SQLite (node:sqlite, WAL) in one transaction, with the
// balance update, on the event loop's thread. It leaves out everything else the gateway does:
// a schema for every field, routing, fail-over, holds, limits, budgets, metrics, tracing, the
// settlement log, rollups, a cost in the answer.
//
//   node bench/floor-relay.ts <upstream origin> <sqlite file> <log file> <client key> <upstream key>
//                                               → prints {"port", "pid"} once listening
import { createHash, randomBytes } from 'node:crypto';
import { openSync, write } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import { DatabaseSync } from 'node:sqlite';
import { Pool } from 'undici';
import { runRelay } from './relay-lifecycle.ts';

const [upstream, dbPath, logPath, clientKey, upstreamKey] = process.argv.slice(2);
if (!upstream || !dbPath || !logPath || !clientKey || !upstreamKey) throw new Error('usage: node bench/floor-relay.ts <upstream> <db> <log> <client key> <upstream key>');

const pool = new Pool(upstream, { connections: 256, pipelining: 1, keepAliveTimeout: 30_000 });
const upstreamAuthorization = `Bearer ${upstreamKey}`;
// time-ordered: each flush's rows land at the right edge of the key indexes (random keys would
// write a page per row, dearer as the table grows)
let idCounter = 0;
const idTail = randomBytes(4).toString('hex');
const newRequestId = (): string => `req_${Date.now().toString(16).padStart(12, '0')}${idTail}${(idCounter++).toString(16).padStart(8, '0')}`;
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const keys = new Map([[sha256(clientKey), { keyId: 'key_1', accountId: 'acct_1' }]]);
const balances = new Map([['acct_1', 1e18]]);

const db = new DatabaseSync(dbPath);
db.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;
  CREATE TABLE accounts (id TEXT PRIMARY KEY, balance INTEGER NOT NULL);
  CREATE TABLE ledger (entry_key TEXT PRIMARY KEY, account_id TEXT NOT NULL, amount INTEGER NOT NULL, created_at INTEGER NOT NULL);
  CREATE TABLE usage (request_id TEXT PRIMARY KEY, key_id TEXT NOT NULL, model TEXT NOT NULL, status INTEGER NOT NULL,
    input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL, cost INTEGER NOT NULL, created_at INTEGER NOT NULL);
  CREATE INDEX usage_by_key ON usage (key_id, created_at);
  INSERT INTO accounts VALUES ('acct_1', 1000000000000000000);`);
const insertLedger = db.prepare('INSERT INTO ledger VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING');
const insertUsage = db.prepare('INSERT INTO usage VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING');
const updateBalance = db.prepare('UPDATE accounts SET balance = balance + ? WHERE id = ?');
type Row = [string, string, string, number, number, number, number, number];
let queued: Row[] = [];
setInterval(() => {
  if (queued.length === 0) return;
  const rows = queued;
  queued = [];
  let total = 0;
  db.exec('BEGIN');
  for (const row of rows) {
    insertLedger.run(`charge:${row[0]}`, 'acct_1', -row[6], row[7]);
    insertUsage.run(...row);
    total += row[6];
  }
  updateBalance.run(-total, 'acct_1');
  db.exec('COMMIT');
}, 250);

const logFd = openSync(logPath, 'a');
let logLines = '';
let logWriting = false;
function logLine(line: string): void {
  logLines += line;
  if (logLines.length < 8192 || logWriting) return;
  const text = logLines;
  logLines = '';
  logWriting = true;
  write(logFd, text, () => (logWriting = false));
}

function fail(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message, type: 'invalid_request_error' } }));
}

interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
}

/** The usage object of a stream's last events (the chunk before `data: [DONE]`). */
function streamUsage(tail: string): Usage | undefined {
  const at = tail.lastIndexOf('data: {', tail.lastIndexOf('"usage"'));
  if (at < 0) return undefined;
  const end = tail.indexOf('\n', at);
  return (JSON.parse(tail.slice(at + 6, end < 0 ? undefined : end)) as { usage?: Usage }).usage;
}

const server = createServer((req, res) => {
  const startedAt = Date.now();
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const auth = req.headers.authorization;
    const key = auth?.startsWith('Bearer ') ? keys.get(sha256(auth.slice(7))) : undefined;
    if (!key) return fail(res, 401, 'Invalid API key.');
    if ((balances.get(key.accountId) ?? 0) <= 0) return fail(res, 402, 'Insufficient balance.');
    const raw = Buffer.concat(chunks);
    let body: { model?: unknown; messages?: unknown; stream?: unknown };
    try {
      body = JSON.parse(raw.toString()) as typeof body;
    } catch {
      return fail(res, 400, 'The body is not JSON.');
    }
    if (typeof body.model !== 'string') return fail(res, 400, 'model: required, a string.');
    if (!Array.isArray(body.messages)) return fail(res, 400, 'messages: required, an array.');
    const model = body.model;
    const stream = body.stream === true;
    pool
      .request({ method: 'POST', path: req.url ?? '/', headers: { 'content-type': 'application/json', authorization: upstreamAuthorization }, body: raw })
      .then(async (answer) => {
        const type = answer.headers['content-type'];
        res.writeHead(answer.statusCode, typeof type === 'string' ? { 'content-type': type } : {});
        let usage: Usage | undefined;
        if (stream) {
          // the usage event is in the last chunks: only they are kept, and decoded at the end
          const last: Buffer[] = [];
          for await (const chunk of answer.body) {
            res.write(chunk);
            if (last.push(chunk as Buffer) > 3) last.shift();
          }
          usage = streamUsage(Buffer.concat(last).toString());
        } else {
          const parts: Buffer[] = [];
          for await (const chunk of answer.body) parts.push(chunk as Buffer);
          const whole = Buffer.concat(parts);
          usage = (JSON.parse(whole.toString()) as { usage?: Usage }).usage;
          res.write(whole);
        }
        const input = usage?.prompt_tokens ?? 0;
        const output = usage?.completion_tokens ?? 0;
        const cost = input * 150 + output * 600;
        balances.set(key.accountId, (balances.get(key.accountId) ?? 0) - cost);
        const requestId = newRequestId();
        queued.push([requestId, key.keyId, model, answer.statusCode, input, output, cost, startedAt]);
        res.end();
        logLine(`${JSON.stringify({ time: new Date().toISOString(), reqId: requestId, key: key.keyId, model, status: answer.statusCode, input, output, cost, ms: Date.now() - startedAt })}\n`);
      })
      .catch(() => {
        if (!res.headersSent) res.writeHead(502);
        res.end();
      });
  });
});
runRelay(server, pool);
