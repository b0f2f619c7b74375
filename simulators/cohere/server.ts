// A Cohere-family upstream on a real socket (tests, demo mode): POST /v2/rerank (protocols §6.1).
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readJsonBody, sendJson } from '../_kit/http.ts';
import { rerankAnswer } from './rerank.ts';

export interface CohereSimulator {
  baseUrl: string;
  requests: Array<{ path: string; body: unknown }>;
  /** the next rerank answers with this status */
  failures: number[];
  close(): Promise<void>;
}

export async function startCohereSimulator(options: { apiKey: string }): Promise<CohereSimulator> {
  const requests: CohereSimulator['requests'] = [];
  const failures: number[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      if (req.headers.authorization !== `Bearer ${options.apiKey}`) return sendJson(res, 401, { id: randomUUID(), message: 'invalid api token' });
      const path = (req.url ?? '/').split('?', 1)[0];
      if (req.method !== 'POST' || path !== '/v2/rerank') return sendJson(res, 404, { id: randomUUID(), message: `no ${req.method} ${path}` });
      const read = await readJsonBody(req, 16 * 1024 * 1024);
      if (!read.ok) return sendJson(res, 400, { id: randomUUID(), message: 'invalid request: body is not JSON' });
      requests.push({ path, body: read.body });
      const failure = failures.shift();
      if (failure !== undefined) return sendJson(res, failure, { id: randomUUID(), message: `simulated ${failure}` });
      const answer = rerankAnswer(read.body);
      return sendJson(res, answer.status, answer.body);
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    failures,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
