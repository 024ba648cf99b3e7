import { readdirSync, readFileSync } from 'node:fs';

/** Linux's clock tick for /proc times; 100 on every mainstream kernel configuration. */
const TICKS_PER_SECOND = 100;

/** CPU time (user + system) a process has used so far, ms; undefined where /proc is not there. */
export function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces: count fields after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/**
 * Time a process's threads have spent runnable but waiting for a core so far (the scheduler's run
 * queue, `/proc/<pid>/task/<tid>/schedstat`), ms; undefined where /proc is not there. With more busy
 * processes than cores, every hop from one process to the next may wait here.
 */
export function runQueueWaitMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    let waitNs = 0;
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      try {
        waitNs += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[1]);
      } catch {
        // The thread ended between the listing and the read.
      }
    }
    return waitNs / 1e6;
  } catch {
    return undefined;
  }
}

/**
 * How busy each named process was over an interval, in % of one core (200% = both cores of this
 * machine). This is what tells which process a throughput figure was limited by. Any other
 * cumulative time per process (`runQueueWaitMs`) reads the same way, in % of the interval.
 */
export class CpuMeter {
  private readonly start = new Map<string, number>();
  private startedAt = 0;

  constructor(
    private readonly read: Record<string, () => number | undefined | Promise<number | undefined>>,
  ) {}

  async begin(): Promise<void> {
    this.startedAt = performance.now();
    for (const [name, read] of Object.entries(this.read)) {
      const value = await read();
      if (value !== undefined) this.start.set(name, value);
    }
  }

  async end(): Promise<Record<string, number>> {
    const elapsed = performance.now() - this.startedAt;
    const busy: Record<string, number> = {};
    for (const [name, read] of Object.entries(this.read)) {
      const before = this.start.get(name);
      const after = await read();
      if (before !== undefined && after !== undefined)
        busy[name] = Math.round(((after - before) / elapsed) * 100);
    }
    return busy;
  }
}

export function cpuLine(busy: Record<string, number>): string {
  return Object.entries(busy)
    .map(([name, percent]) => `${name} ${percent}%`)
    .join(', ');
}
