/** `data:<media type>[;base64],<data>` → its parts; null for anything else. Non-base64 data is encoded. */
export function parseDataUrl(url: string): { mediaType: string; data: string } | null {
  if (!url.startsWith('data:')) return null;
  const comma = url.indexOf(',');
  if (comma < 0) return null;
  const meta = url.slice(5, comma).split(';');
  const mediaType = (meta[0] || 'text/plain').toLowerCase();
  const payload = url.slice(comma + 1);
  const data = meta.includes('base64') ? payload : Buffer.from(decodeURIComponent(payload), 'utf8').toString('base64');
  return { mediaType, data };
}

const BY_EXTENSION: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  heic: 'image/heic',
  heif: 'image/heif',
  pdf: 'application/pdf',
};

/** The media type a URL's file extension suggests, if any. */
export function mediaTypeOfUrl(url: string): string | undefined {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return undefined;
  }
  const ext = path.slice(path.lastIndexOf('.') + 1).toLowerCase();
  return BY_EXTENSION[ext];
}
