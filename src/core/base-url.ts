/**
 * A provider's base URL in the form its adapter appends paths to: without trailing slashes, and
 * a bare origin given the family's version segment (its manifest's `versionSegment`) (`https://api.anthropic.com` →
 * `https://api.anthropic.com/v1`), since the vendors' own SDKs document both forms. A URL that
 * has a path (`…/v1`, Gemini's `…/v1`, an OpenAI-compatible server's `/openai/v1`) is kept.
 */
export function normalizeBaseUrl(segment: string | undefined, baseUrl: string): string {
  const trimmed = baseUrl.trim().replace(/\/+$/, '');
  if (!segment || !URL.canParse(trimmed)) return trimmed;
  const url = new URL(trimmed);
  const bare = url.pathname === '/' && !url.search && !url.hash;
  return bare ? trimmed + segment : trimmed;
}
