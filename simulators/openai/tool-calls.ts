// Deterministic tool calls are shared by every family's simulator.
export { chooseToolCalls, sampleArguments, type SimulatedToolCall } from '../_kit/tools.ts';
