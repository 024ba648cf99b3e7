import { type ActivityHost, randomActivity } from './activity';
import { type RuntimeConfig, SANDBOX_ACCOUNTS } from './options';
import type { Realtime } from './realtime';

/** What the activity streams use of the sandbox (core.ts `SimCore` is the one there is). */
export interface StreamsHost extends ActivityHost {
  readonly realtime: Pick<Realtime, 'publish' | 'liveCreators'>;
  readonly config: Pick<RuntimeConfig, 'activityPerMinute'>;
}

/**
 * Random activity over time: streams started by POST /_sim/activity/stream (a rate for a while) and
 * the continuous one of the activityPerMinute option. Each runs on a 100 ms tick and catches up to
 * `rate × elapsed` activities, so the count is exact whatever the timer's drift.
 */

const TICK_MS = 100;

interface Stream {
  id: string;
  perSecond: number;
  /** null = until stopped. */
  endsAt: number | null;
  startedAt: number;
  emitted: number;
  /** Creator indexes; null = those with a live realtime connection (creator_demo when none). */
  creators: number[] | null;
  timer: NodeJS.Timeout;
}

export interface StreamRequest {
  perSecond: number;
  seconds: number | null;
  creators: number[] | null;
}

export class ActivityStreams {
  private readonly streams = new Map<string, Stream>();
  private nextId = 1;
  private continuous: { stream: Stream; perMinute: number } | null = null;

  constructor(private readonly core: StreamsHost) {}

  start(request: StreamRequest): Stream {
    const startedAt = Date.now();
    const stream: Stream = {
      id: `str_${this.nextId++}`,
      perSecond: request.perSecond,
      endsAt: request.seconds === null ? null : startedAt + request.seconds * 1000,
      startedAt,
      emitted: 0,
      creators: request.creators,
      timer: setInterval(() => this.tick(stream), TICK_MS),
    };
    // A running stream does not keep a process alive; app.close() stops it anyway.
    stream.timer.unref();
    this.streams.set(stream.id, stream);
    return stream;
  }

  private tick(stream: Stream): void {
    const now = Date.now();
    const until = stream.endsAt === null ? now : Math.min(now, stream.endsAt);
    const due = Math.floor(((until - stream.startedAt) / 1000) * stream.perSecond);
    const creators = this.creatorsOf(stream);
    for (; stream.emitted < due; stream.emitted++) {
      const creator = creators[stream.emitted % creators.length];
      if (creator !== undefined) randomActivity(this.core, creator);
    }
    if (stream.endsAt !== null && now >= stream.endsAt) this.stop(stream.id);
  }

  private creatorsOf(stream: Stream): number[] {
    if (stream.creators !== null) return stream.creators;
    const live = this.core.realtime.liveCreators();
    return live.length > 0 ? live : [this.core.world.directory.indexOf(SANDBOX_ACCOUNTS[0].username)];
  }

  stop(id: string): boolean {
    const stream = this.streams.get(id);
    if (!stream) return false;
    clearInterval(stream.timer);
    this.streams.delete(id);
    return true;
  }

  /** Starts, changes or stops the continuous stream to match the activityPerMinute option. */
  sync(): void {
    const perMinute = this.core.config.activityPerMinute;
    if (this.continuous?.perMinute === perMinute) return;
    if (this.continuous) this.stop(this.continuous.stream.id);
    this.continuous =
      perMinute > 0
        ? { stream: this.start({ perSecond: perMinute / 60, seconds: null, creators: null }), perMinute }
        : null;
  }

  /** Every stream stops (a reset, the sandbox closing). */
  stopAll(): number {
    const count = this.streams.size;
    for (const id of [...this.streams.keys()]) this.stop(id);
    this.continuous = null;
    return count;
  }

  describe(stream: Stream): Record<string, unknown> {
    return {
      streamId: stream.id,
      perSecond: stream.perSecond,
      endsAt: stream.endsAt,
      creators: this.creatorsOf(stream).map((creator) => this.core.world.identity(creator).username),
      expected:
        stream.endsAt === null
          ? null
          : Math.floor(((stream.endsAt - stream.startedAt) / 1000) * stream.perSecond),
    };
  }
}
