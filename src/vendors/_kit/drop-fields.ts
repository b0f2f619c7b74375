/**
 * Removes the top-level fields `allowed` does not name from `body` (a copy the codec owns); the
 * warnings (for `x-modelgate-warning`) name them. A family passes on only fields it knows to be
 * free or checked priced: an unknown one may be a feature the vendor bills.
 */
export function dropUnknownFields(body: Record<string, unknown>, allowed: ReadonlySet<string>): string[] | undefined {
  let warnings: string[] | undefined;
  for (const field of Object.keys(body)) {
    if (allowed.has(field)) continue;
    delete body[field];
    (warnings ??= []).push(`${field} dropped (not a field the gateway passes on)`);
  }
  return warnings;
}
