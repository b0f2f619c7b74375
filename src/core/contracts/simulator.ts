/**
 * A vendor simulator running on loopback: what demo mode registers as a provider. The simulators
 * live outside the product (simulators/, listed by simulators/registry.ts); this is the shape the
 * product sees, so demo mode can take the starters as a parameter without importing them.
 */
export interface SimulatorHandle {
  baseUrl: string;
  /** a fresh key the simulator accepts */
  apiKey: string;
  close(): Promise<void>;
}

/** family name → a function that starts that family's simulator */
export type SimulatorStarters = Readonly<Record<string, () => Promise<SimulatorHandle>>>;
