/**
 * How many health checks run at once in this process, whoever starts them (monitor, API, CLI),
 * shared fairly between projects. At most `limit` run in all. A project with no check running may
 * take any free slot; a project already running checks may take another only while `reserved`
 * slots stay free, so one project whose servers hang cannot fill every slot (a single project
 * still uses `limit - reserved`). A freed slot goes to the waiting projects in turn (round robin),
 * first come first served within one project.
 */
export class Limiter {
  private active = 0;
  private readonly activeBy = new Map<string, number>();
  /** Waiting projects in the order they are served next (Map keeps insertion order). */
  private readonly queues = new Map<string, (() => void)[]>();

  constructor(
    readonly limit: number,
    readonly reserved = 0,
  ) {}

  async run<T>(group: string, fn: () => Promise<T>): Promise<T> {
    if (this.canStart(group) && !this.queues.has(group)) this.start(group);
    else await new Promise<void>((resolve) => this.enqueue(group, resolve));
    try {
      return await fn();
    } finally {
      this.active--;
      const left = this.runningIn(group) - 1;
      if (left > 0) this.activeBy.set(group, left);
      else this.activeBy.delete(group);
      this.dispatch();
    }
  }

  get running(): number {
    return this.active;
  }

  get queued(): number {
    let n = 0;
    for (const q of this.queues.values()) n += q.length;
    return n;
  }

  private canStart(group: string): boolean {
    const free = this.limit - this.active;
    return free > 0 && (this.runningIn(group) === 0 || free - 1 >= this.reserved);
  }

  private dispatch(): void {
    for (let served = true; served && this.active < this.limit;) {
      served = false;
      for (const [group, queue] of [...this.queues]) {
        if (!this.canStart(group)) continue;
        const next = queue.shift();
        // A served project goes to the back of the line.
        this.queues.delete(group);
        if (queue.length > 0) this.queues.set(group, queue);
        if (!next) continue;
        this.start(group);
        next();
        served = true;
      }
    }
  }

  private enqueue(group: string, resolve: () => void): void {
    const queue = this.queues.get(group);
    if (queue) queue.push(resolve);
    else this.queues.set(group, [resolve]);
  }

  private start(group: string): void {
    this.active++;
    this.activeBy.set(group, this.runningIn(group) + 1);
  }

  private runningIn(group: string): number {
    return this.activeBy.get(group) ?? 0;
  }
}
