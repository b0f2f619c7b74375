import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Signed links: `…/media/<id>?expires=<unix seconds>&sig=<HMAC-SHA256(id.expires)>`. The
 * signature covers the expiry, so moving it is tampering; a link past its expiry is gone.
 */
export class LinkSigner {
  private readonly secret: Buffer;

  constructor(secret: string) {
    this.secret = Buffer.from(secret, 'utf8');
  }

  sign(id: string, expires: number): string {
    return createHmac('sha256', this.secret).update(`${id}.${expires}`).digest('base64url');
  }

  /** 'ok', 'invalid' (no or wrong signature: 403) or 'expired' (a genuine link past its time: 410). */
  check(id: string, expires: string | undefined, sig: string | undefined, nowSeconds: number): 'ok' | 'invalid' | 'expired' {
    if (!expires || !sig || !/^\d{1,12}$/.test(expires)) return 'invalid';
    const expected = Buffer.from(this.sign(id, Number(expires)), 'utf8');
    const given = Buffer.from(sig, 'utf8');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
    return Number(expires) <= nowSeconds ? 'expired' : 'ok';
  }
}
