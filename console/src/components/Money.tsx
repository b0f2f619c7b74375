import { cents, money } from '../lib/format.ts';

/** An amount to cents, with the exact value on hover (cards and tables; the ledger shows it in full). */
export function Money({ usd, testId }: { usd: string | null | undefined; testId?: string }) {
  if (usd === null || usd === undefined) return <>—</>;
  return (
    <span title={money(usd)} data-testid={testId}>
      {cents(usd)}
    </span>
  );
}
