import { mkdirSync, rmSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** What a spool file is for: an upload's bytes on their way to the platform, or a download's back. */
export type SpoolUse = 'upload' | 'download';

const NAME = /^(job_[A-Za-z0-9]{1,64})\.(upload|download)$/;

/**
 * The folder media files pass through (`MEDIA_SPOOL_DIR`), shared by the API and the workers: the
 * API streams an upload into it and a download out of it, a worker streams the upload to the platform
 * and the download from the CDN. A file is named by its job, so a job finds its file and nothing
 * else can be named.
 */
export class Spool {
  constructor(readonly dir: string) {}

  /** Creates the folder; the processes using it call this at start. */
  ensure(): this {
    mkdirSync(this.dir, { recursive: true });
    return this;
  }

  static nameOf(jobId: string, use: SpoolUse): string {
    const name = `${jobId}.${use}`;
    if (!NAME.test(name)) throw new TypeError(`not a job id: ${jobId}`);
    return name;
  }

  /** The path of a spool file, from its name (never any other path). */
  path(name: string): string {
    if (!NAME.test(name)) throw new TypeError(`not a spool file name: ${name}`);
    return join(this.dir, name);
  }

  remove(name: string): void {
    rmSync(this.path(name), { force: true });
  }

  /**
   * The spool's files with their job and age: the sweeper removes those whose job has ended (or never
   * was queued, from an upload cut off while it was spooled).
   */
  async files(now = Date.now()): Promise<{ name: string; jobId: string; use: SpoolUse; ageMs: number }[]> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    const found = [];
    for (const name of names) {
      const match = NAME.exec(name);
      if (!match) continue;
      const info = await stat(join(this.dir, name)).catch(() => null);
      if (info === null) continue;
      found.push({
        name,
        jobId: match[1] as string,
        use: match[2] as SpoolUse,
        ageMs: now - info.mtimeMs,
      });
    }
    return found;
  }
}
