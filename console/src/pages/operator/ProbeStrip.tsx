import { t } from '../../i18n/index.ts';
import { dateTime } from '../../lib/format.ts';

/** One scheduled health probe's result (GET /console/api/admin/providers/:id/health). */
export interface ProbeResult {
  at: string;
  ok: boolean;
  status: number | null;
  latency_ms: number;
  message: string;
}

/** The last probes as a strip of marks (oldest left), then the newest: up or down, latency, time, error. */
export function ProbeStrip({ probes }: { probes: ProbeResult[] | undefined }) {
  if (!probes || probes.length === 0) return <div class="small muted">{t('providers.probes.none')}</div>;
  const newest = probes[0]!;
  const lastError = probes.find((p) => !p.ok);
  return (
    <div class="probe-strip">
      <div class="probe-marks" role="img" aria-label={t('providers.probes.label', { count: probes.length })}>
        {[...probes].reverse().map((p) => (
          <span class={p.ok ? 'probe-mark ok' : 'probe-mark bad'} title={`${dateTime(p.at)} · ${p.status ?? '—'} · ${p.latency_ms} ms · ${p.message}`} />
        ))}
      </div>
      <div class="small muted">
        {t(newest.ok ? 'providers.probes.up' : 'providers.probes.down', { ms: newest.latency_ms, at: dateTime(newest.at) })}
      </div>
      {lastError && <div class="small muted break" title={dateTime(lastError.at)}>{t('providers.probes.lastError', { message: lastError.message })}</div>}
    </div>
  );
}
