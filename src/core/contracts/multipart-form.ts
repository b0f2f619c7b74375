import type { UploadedFile } from '../ir/media.ts';

/** A multipart form as the HTTP layer read it (files spooled to disk): what a dialect decodes. */
export interface MultipartForm {
  /** text fields in the order sent; repeated names (`key[]`) appear once per value */
  fields: Array<[name: string, value: string]>;
  files: UploadedFile[];
  /** the last value of a text field */
  field(name: string): string | undefined;
}
