import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompress, gzip } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Where `npm run build:console` writes the front end. */
export const CONSOLE_DIST = fileURLToPath(new URL('../../console/dist/', import.meta.url));

/** Only this gateway's own files: no inline script or style, no third-party host. */
export const PAGE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; " +
  "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

export const SECURITY_HEADERS: Record<string, string> = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=()',
};

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};

interface Asset {
  type: string;
  body: Buffer;
  compressible: boolean;
  /** filled in the background after the asset is first asked for (see `compressed`) */
  gzip: Buffer | undefined;
  brotli: Buffer | undefined;
  compressing: boolean;
  etag: string;
  immutable: boolean;
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

/**
 * The built console, loaded once into memory (it is small). Its gzip and brotli copies are made
 * off the event loop when an asset is first asked for (until then it is sent as is): compressing
 * them at start-up took most of the gateway's start-up time.
 */
export class StaticFiles {
  private readonly assets = new Map<string, Asset>();
  readonly built: boolean;

  constructor(dir = CONSOLE_DIST) {
    this.built = existsSync(join(dir, 'index.html'));
    if (!this.built) return;
    for (const path of walk(dir)) {
      const name = `/${relative(dir, path).split('\\').join('/')}`;
      const body = readFileSync(path);
      const type = TYPES[extname(path)] ?? 'application/octet-stream';
      this.assets.set(name, {
        type,
        body,
        compressible: /text|javascript|json|svg/.test(type) && body.length > 512,
        gzip: undefined,
        brotli: undefined,
        compressing: false,
        etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
        // Vite names built assets by content hash
        immutable: name.startsWith('/assets/'),
      });
    }
  }

  /** Serves `path` (relative to /console), or the app's index.html for client-side routes. */
  send(request: FastifyRequest, reply: FastifyReply, path: string): FastifyReply {
    reply.headers(SECURITY_HEADERS).header('content-security-policy', PAGE_CSP);
    if (!this.built) {
      return reply
        .code(503)
        .type('text/plain; charset=utf-8')
        .send('The console is not built yet. Run "npm run build:console" (npm install does it), then restart the gateway.\n');
    }
    let asset = this.assets.get(path);
    if (!asset) {
      // a missing hashed asset is a real 404; anything else is a page of the single-page app
      if (path.startsWith('/assets/') || extname(path) !== '') return reply.code(404).type('text/plain; charset=utf-8').send('Not found\n');
      asset = this.assets.get('/index.html')!;
    }
    reply.header('etag', asset.etag).header('vary', 'accept-encoding');
    reply.header('cache-control', asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
    if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
    const accepts = String(request.headers['accept-encoding'] ?? '');
    reply.type(asset.type);
    if (asset.compressible && !asset.compressing) compressInBackground(asset);
    if (asset.brotli && /\bbr\b/.test(accepts)) return reply.header('content-encoding', 'br').send(asset.brotli);
    if (asset.gzip && /\bgzip\b/.test(accepts)) return reply.header('content-encoding', 'gzip').send(asset.gzip);
    return reply.send(asset.body);
  }
}

/** Makes an asset's gzip (level 9) and brotli copies on libuv's thread pool, once; a failure leaves it uncompressed. */
function compressInBackground(asset: Asset): void {
  asset.compressing = true;
  gzip(asset.body, { level: 9 }, (error, result) => {
    if (!error) asset.gzip = result;
  });
  brotliCompress(asset.body, (error, result) => {
    if (!error) asset.brotli = result;
  });
}
