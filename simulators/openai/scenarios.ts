// The scenario vocabulary is shared by every family's simulator.
export * from '../_kit/scenarios.ts';
