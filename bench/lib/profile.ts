import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where a V8 CPU profile spent its time, by area (package) and by function, as shares of busy time. */
export interface ProfileSummary {
  file: string;
  busyMs: number;
  areas: Array<{ area: string; percent: number }>;
  functions: Array<{ name: string; percent: number }>;
}

interface CpuNode {
  id: number;
  hitCount?: number;
  children?: number[];
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: CpuNode[];
  startTime: number;
  endTime: number;
  samples: number[];
}

/**
 * One summary per process folder under `dir` (see `startNode`): of the profiles a process wrote (its
 * main thread and tsx's loader thread), the busiest, which is the one that served the load.
 */
export function summariseProfiles(dir: string): ProfileSummary[] {
  const summaries: ProfileSummary[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory())) {
    const folder = join(dir, entry.name);
    const busiest = readdirSync(folder)
      .filter((name) => name.endsWith('.cpuprofile'))
      .map((name) => summariseProfile(join(folder, name)))
      .sort((a, b) => b.busyMs - a.busyMs)[0];
    if (busiest) summaries.push(busiest);
  }
  return summaries.sort((a, b) => a.file.localeCompare(b.file));
}

export function summariseProfile(file: string): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const sampleMs = (profile.endTime - profile.startTime) / 1000 / Math.max(1, profile.samples.length);
  const parent = new Map<number, CpuNode>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node);
  // Native frames (socket writes, string encoding, crypto) have no script of their own: they are
  // charged to the nearest caller outside Node's own library, which says who asked for the work.
  const caller = (node: CpuNode): CpuNode | undefined => {
    let up = parent.get(node.id);
    while (up && (up.callFrame.url === '' || up.callFrame.url.startsWith('node:'))) up = parent.get(up.id);
    return up;
  };
  const areas = new Map<string, number>();
  const functions = new Map<string, number>();
  let busy = 0;
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    const { functionName, url } = node.callFrame;
    // Idle is the event loop waiting: not a cost.
    if (hits === 0 || functionName === '(idle)') continue;
    busy += hits;
    const from = url === '' && !functionName.startsWith('(') ? caller(node) : undefined;
    const area = from ? areaOf(from.callFrame.functionName, from.callFrame.url) : areaOf(functionName, url);
    areas.set(area, (areas.get(area) ?? 0) + hits);
    const name = from ? `${functionName || '(native)'} ← ${frameName(from)}` : frameName(node);
    functions.set(name, (functions.get(name) ?? 0) + hits);
  }
  const top = (map: Map<string, number>, n: number) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([key, hits]) => ({ key, percent: Math.round((hits / Math.max(1, busy)) * 1000) / 10 }));
  return {
    file,
    busyMs: Math.round(busy * sampleMs),
    areas: top(areas, 12).map(({ key, percent }) => ({ area: key, percent })),
    functions: top(functions, 15).map(({ key, percent }) => ({ name: key, percent })),
  };
}

function frameName(node: CpuNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  return `${functionName || '(anonymous)'}${url ? ` ${shortUrl(url)}:${lineNumber + 1}` : ''}`;
}

/** A package name for dependencies, the workspace folder for our code, or what V8 calls the rest. */
function areaOf(functionName: string, url: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : 'native';
  const dependency = /node_modules\/\.pnpm\/[^/]+\/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (dependency?.[1]) return dependency[1];
  const workspace = /\/(packages|apps|bench)\/([^/]+)\//.exec(url);
  if (workspace) return `${workspace[1]}/${workspace[2]}`;
  if (url.startsWith('node:'))
    return `node:${url.slice(5).split('/')[0] === 'internal' ? url.slice(5).split('/').slice(0, 2).join('/') : url.slice(5)}`;
  return 'other';
}

function shortUrl(url: string): string {
  return url
    .replace(/^file:\/\//, '')
    .replace(/.*node_modules\/\.pnpm\/[^/]+\/node_modules\//, '')
    .replace(/.*\/(packages|apps|bench)\//, '$1/');
}
