/** RFC 4180 fields; a leading =, +, - or @ is prefixed with ' so spreadsheets never run it as a formula. */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (/^[=+\-@\t\r]/.test(text) && !/^-?\d/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvLine(values: unknown[]): string {
  return `${values.map(csvField).join(',')}\r\n`;
}
