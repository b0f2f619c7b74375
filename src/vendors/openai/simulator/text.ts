// The reply-text helpers are shared by every family's simulator.
export * from '../../_kit/sim-text.ts';
