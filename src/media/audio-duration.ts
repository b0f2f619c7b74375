import type { IAudioMetadata } from 'music-metadata';

/** The library (~70 modules, 20 MB of RSS) is loaded by the first media request, not at start-up. */
const library = () => import('music-metadata');

/**
 * Seconds of media, read by a media library: the container's headers, or a frame scan where the
 * format has none. null when the library cannot tell: the gateway never guesses a length.
 */
export async function measureDuration(path: string): Promise<number | null> {
  const { parseFile } = await library();
  try {
    return durationOf(await parseFile(path, { duration: true, skipCovers: true }));
  } catch {
    return null;
  }
}

/** The same for bytes in memory (a downloaded video), with the container type as a hint. */
export async function measureBytes(bytes: Uint8Array, mimeType: string): Promise<number | null> {
  const { parseBuffer } = await library();
  try {
    return durationOf(await parseBuffer(bytes, { mimeType, size: bytes.byteLength }, { duration: true, skipCovers: true }));
  } catch {
    return null;
  }
}

/** An audio file's duration, or the longest track's (a video file's tracks carry theirs). */
function durationOf(metadata: IAudioMetadata): number | null {
  const candidates = [metadata.format.duration, ...(metadata.format.trackInfo ?? []).map((t) => (t as { duration?: number }).duration)];
  const seconds = Math.max(...candidates.filter((d): d is number => typeof d === 'number' && Number.isFinite(d) && d >= 0));
  return Number.isFinite(seconds) ? seconds : null;
}
