// Scale-down (issue "Skills, roles and spawning"): a specialist started as an extra logs one
// {"msg":"idle"} line once it has had no work for `afterMs`; the supervisor, which reads its
// log lines, stops it. Re-armed by the next exchange. The clock is injectable for tests.
export class IdleWatch {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly afterMs: number,
    private readonly quiet: () => boolean,
    private readonly onIdle: (ms: number) => void,
    private readonly timers: { set: typeof setTimeout; clear: typeof clearTimeout } = { set: setTimeout, clear: clearTimeout },
  ) {}

  /** Work started or ended: the idle period starts again. */
  touch(): void {
    if (this.stopped) return;
    this.timers.clear(this.timer);
    this.timer = this.timers.set(() => {
      if (this.quiet()) this.onIdle(this.afterMs);
      else this.touch(); // still working: look again later
    }, this.afterMs);
    this.timer.unref?.();
  }

  stop(): void {
    this.stopped = true;
    this.timers.clear(this.timer);
  }
}
