/**
 * Bytes the gateway serves itself: `save` keeps them (for the media store's time to live) and
 * returns its record of them, `link` the signed URL they are served under. The media store
 * implements it; `Stored` is opaque to the caller.
 */
export interface MediaLinks<Stored> {
  save(object: { accountId: string; kind: 'image' | 'video'; contentType: string; data: Uint8Array }): Promise<Stored>;
  link(stored: Stored): string;
}
