// What a media endpoint (predict, long-running video, file download) answers: JSON or raw bytes.
// Its own file so the handlers and the media server that routes to them import it without a circle.

export type SimReply = { kind: 'json'; status: number; body: unknown } | { kind: 'bytes'; contentType: string; data: Buffer };

export function googleError(code: number, status: string, message: string): SimReply {
  return { kind: 'json', status: code, body: { error: { code, message, status } } };
}
