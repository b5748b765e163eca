/** A counting semaphore: at most `limit` tasks run at once, the others wait in order. */
export class Limiter {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(readonly limit: number) {}
  get active(): number {
    return this.running;
  }
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((r) => this.waiting.push(r));
    this.running++;
    try {
      return await task();
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }
}
