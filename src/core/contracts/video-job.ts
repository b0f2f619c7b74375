export type VideoJobStatus = 'queued' | 'in_progress' | 'completed' | 'failed';

/**
 * A video job as its client sees it: the fields the dialects' views show. The store's row
 * (VideoJobRow) has these and the gateway's own bookkeeping besides.
 */
export interface VideoJob {
  id: string;
  model: string;
  prompt: string;
  status: VideoJobStatus;
  progress: number;
  seconds_requested: number;
  seconds_billed: number | null;
  size: string | null;
  error_code: string | null;
  error_message: string | null;
  created_at: number;
  completed_at: number | null;
}
