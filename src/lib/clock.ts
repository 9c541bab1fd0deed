/**
 * The one source of "now". Tests move it (expiry, rate-limit windows, accounting periods)
 * instead of sleeping.
 */
let offsetMs = 0;
let frozen: number | null = null;

export const clock = {
  now(): Date {
    return new Date((frozen ?? Date.now()) + offsetMs);
  },
  nowSeconds(): number {
    return Math.floor(clock.now().getTime() / 1000);
  },
  /** Test helper: move the clock forward (or back) by ms. */
  advance(ms: number): void {
    offsetMs += ms;
  },
  freeze(at: Date): void {
    frozen = at.getTime();
    offsetMs = 0;
  },
  reset(): void {
    offsetMs = 0;
    frozen = null;
  },
};
