/**
 * What the load process is asked to do and what it reports. Plain data: it crosses a process
 * boundary (IPC), so no functions in here.
 */
export interface LoadSpec {
  /** `http://127.0.0.1:PORT`; the load never goes anywhere else. */
  origin: string;
  method: 'GET' | 'POST';
  /** Request targets; which one a request takes is decided by `assign`. */
  paths: string[];
  headers: Record<string, string>;
  /**
   * `round-robin`: request n takes `paths[n % length]`, spreading load over accounts.
   * `per-caller`: closed-loop caller i always takes `paths[i % length]` (one caller per account).
   */
  assign: 'round-robin' | 'per-caller';
  mode:
    | { kind: 'closed'; callers: number }
    /** Requests start on a fixed schedule whatever the answers (no coordinated omission). */
    | { kind: 'open'; ratePerSecond: number; maxInFlight: number };
  /** Answers before this are not measured (connections, JIT, caches warm up). */
  warmupMs: number;
  /** The measured window after the warm-up; no request starts after it. */
  durationMs: number;
  /** Stop starting requests after this many (S5's fixed number of jobs). */
  maxRequests?: number;
  /**
   * The statuses the scenario's figures count on: an answer with any other (a 429, a 5xx, a
   * transport error), warm-up included, makes the run invalid instead of a figure.
   */
  expect: string[];
  timeoutMs: number;
}

export interface LatencySummary {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

export interface LoadResult {
  /** Length of the measured window actually used, ms. */
  windowMs: number;
  /** Requests that started in the window, by HTTP status (`error:<code>` for transport failures). */
  statuses: Record<string, number>;
  /** Answers received in the window per second, by status (throughput). */
  ratePerSecond: Record<string, number>;
  /** Latency of the requests that started in the window and got an HTTP answer. */
  latencyMs: LatencySummary;
  /** Every request of the run, warm-up and drain included (for per-request Redis costs). */
  totalRequests: number;
  totalStatuses: Record<string, number>;
  /** From the first request's start to the last answer, ms (for fixed-count runs). */
  elapsedMs: number;
  /** Open loop only: requests not started because `maxInFlight` were already waiting. */
  dropped: number;
  /** The load process's own CPU use over the run, % of one core: it shares the machine. */
  cpuPercent: number;
}
