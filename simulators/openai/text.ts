// The reply-text helpers are shared by every family's simulator.
export * from '../_kit/text.ts';
