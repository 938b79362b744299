/**
 * ReadBoard's outline as lines: frames in reading order with what they hold, clusters of sticky
 * notes, flows along connectors, overlaps, items outside every frame, and what is ambiguous.
 * Pure: the items read in, the answer's `outline` and its `partial` notes out. Every platform
 * text is quoted (core/tools/line-text.ts; formats in line-formats.ts). The sections share the
 * room for lines fairly (each gets what it needs up to an equal share of what is left), and what
 * did not fit is said.
 */
import { idText, quotedText } from '../../core/tools/line-text.js';
import { STICKY_COLORS } from '../task-vocabulary.js';
import { lineBytes } from './board-lines.js';
import { boxAround, clusterNotes, findOverlaps, readingOrder, traceFlows, Work, type Box, type FlowChain } from './board-outline.js';

/** An item as the outline takes it: its box in board coordinates when known, its text cut to OUTLINE_TEXT_CHARS (`cut` when longer). */
export interface OutlineItem {
  id: string;
  type: string;
  text: string;
  box?: Box;
  /** Its frame's ID. */
  parent?: string;
  cut?: boolean;
}

export interface OutlineInput {
  /** Frames and other items read, frames first or not: order does not matter. */
  items: readonly OutlineItem[];
  connectors: readonly { id: string; from: string; to: string; caption: string }[];
  /** Tag titles per item (sticky notes), as read. */
  tags: ReadonlyMap<string, readonly string[]>;
  /** Each sticky note's colour whose style was read. */
  colours: ReadonlyMap<string, string>;
  /** Bytes the outline's lines may take. */
  budgetBytes: number;
}

/** Characters of an item's text the outline shows. */
export const OUTLINE_TEXT_CHARS = 100;
/** Texts shown on one frame line, notes on one cluster line, steps on one flow line. */
const PER_LINE = { frameTexts: 12, clusterNotes: 20, flowSteps: 25 } as const;
/** Lines at most: overlaps and items outside frames (the rest counted), and ambiguous sentences of each kind. */
const LISTED = { overlaps: 30, outside: 30, perKind: 5 } as const;

export const OUTLINE_FORMAT =
  'Board coordinates, boxes left,top to right,bottom. Reading order: rows top to bottom (a box joins a row if its top is above the middle of the row\'s first box), each left to right. ' +
  'frames: ID "title" box: counts; texts: items not notes nor in flows. clusters: notes under half a note apart. flows: ID "text" -> ID "text" -["caption"]-> ...; (joins): shown before; (cycle): loops back.';

const round = (n: number) => String(Math.round(n));
const boxText = (b: Box) => `${round(b.left)},${round(b.top)} to ${round(b.right)},${round(b.bottom)}`;
const named = (item: OutlineItem | undefined, id: string) => (item && item.text ? `${idText(id)} ${quotedText(item.text)}` : idText(id));

/** Counts by type, largest first: `8 sticky_note, 3 shape`. */
function countsText(items: readonly OutlineItem[]): string {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(item.type, (counts.get(item.type) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([type, n]) => `${n} ${idText(type)}`).join(', ');
}

/** At most `max` entries joined by commas, then `+N more`. */
function listed(entries: readonly string[], max: number): string {
  return entries.slice(0, max).join(', ') + (entries.length > max ? `, +${entries.length - max} more` : '');
}

/** Items in reading order (those without a box last, as read). */
function inReadingOrder(items: readonly OutlineItem[]): OutlineItem[] {
  const placed = items.filter((item) => item.box);
  return [...readingOrder(placed.map((item) => item.box as Box)).map((i) => placed[i] as OutlineItem), ...items.filter((item) => !item.box)];
}

export interface Outline {
  outline: Record<string, unknown>;
  notes: string[];
  /** Work steps each step took (test/canvasapi-read-board-outline.test.ts holds them to their bound). */
  work: { flows: number; clusters: number; overlaps: number };
}

export function outlineOf(input: OutlineInput): Outline {
  const byId = new Map(input.items.map((item) => [item.id, item]));
  const frames = inReadingOrder(input.items.filter((item) => item.type === 'frame'));
  const others = input.items.filter((item) => item.type !== 'frame');
  // Each step its own bound, so that one cut short leaves the others whole.
  const work = { flows: Work.forItems(input.connectors.length), clusters: Work.forItems(others.length), overlaps: Work.forItems(input.items.length) };
  const notes: string[] = [];

  // Items in flows: both ends of a connector between items read.
  const connected = new Set<string>();
  for (const c of input.connectors) connected.add(c.from).add(c.to);
  const rank = new Map(inReadingOrder(others).map((item, i) => [item.id, i]));
  const flows = traceFlows(input.connectors, (id) => rank.get(id) ?? Number.MAX_SAFE_INTEGER, work.flows);
  if (flows.cut) notes.push('outline.flows: the connectors were traced in part only (the work bound for this many)');

  // Containers: each frame read, and the open board (items without a frame, or whose frame was not read).
  const frameIds = new Set(frames.map((f) => f.id));
  const containerOf = (item: OutlineItem) => (item.parent && frameIds.has(item.parent) ? item.parent : '');
  // Frames in reading order, then the open board: the order of the clusters too.
  const byContainer = new Map<string, OutlineItem[]>([...frames.map((f) => [f.id, []] as [string, OutlineItem[]]), ['', []]]);
  for (const item of inReadingOrder(others)) (byContainer.get(containerOf(item)) as OutlineItem[]).push(item);
  const unread = others.filter((item) => item.parent && !frameIds.has(item.parent)).length;
  if (unread > 0) notes.push(`outline: ${unread} items are in frames this call did not read; they are placed on the open board, without a box`);

  const summary = (items: readonly OutlineItem[]) => {
    const texts = items.filter((item) => item.type !== 'sticky_note' && !connected.has(item.id) && item.text).map((item) => named(item, item.id));
    return `${items.length ? countsText(items) : 'empty'}${texts.length ? `; texts: ${listed(texts, PER_LINE.frameTexts)}` : ''}`;
  };
  const frameLines = frames.map((frame) => `${named(frame, frame.id)} ${frame.box ? boxText(frame.box) : 'unplaced'}: ${summary(byContainer.get(frame.id) ?? [])}`);
  const loose = byContainer.get('') ?? [];

  const clustered = clustersOf(byContainer, input, work.clusters);
  if (clustered.cut) notes.push('outline.clusters: notes packed too densely to compare all; some clusters may be split');
  const overlaps = overlapsOf(input.items, work.overlaps);
  if (overlaps.cut) notes.push('outline.overlaps: more boxes overlap than this call compares; the list and count are of those found');

  const ambiguous = [
    ...overlaps.frames.slice(0, LISTED.perKind).map(([a, b]) => `frames ${named(a, a.id)} and ${named(b, b.id)} overlap: what lies where they meet may be read as in either`),
    ...clustered.near.slice(0, LISTED.perKind).map(([a, b]) => `notes ${named(a, a.id)} and ${named(b, b.id)} are close but in different clusters: where one cluster ends is unclear`),
    ...unconnectedShapes(byContainer, connected, byId).slice(0, LISTED.perKind),
    ...flows.cycles.slice(0, LISTED.perKind).map((cycle) => `a cycle: ${cycle.map((id) => named(byId.get(id), id)).join(' -> ')} -> back to ${idText(cycle[0] as string)}`),
    ...sameTexts(input.items).slice(0, LISTED.perKind),
    ...cutTexts(input.items),
  ];
  const hasFrames = frames.length > 0;
  const sections: Record<string, string[]> = {
    frames: frameLines,
    clusters: clustered.lines,
    flows: flows.chains.flatMap((chain) => chainLines(chain, input.connectors, byId)),
    overlaps: overlaps.items.slice(0, LISTED.overlaps).map(([a, b]) => `${named(a, a.id)} ${idText(a.type)} and ${named(b, b.id)} ${idText(b.type)}`),
    outside_frames: hasFrames ? loose.slice(0, LISTED.outside).map((item) => `${named(item, item.id)} ${idText(item.type)}${item.box ? ` ${boxText(item.box)}` : ''}`) : [],
    ambiguous,
  };
  const fitted = fitSections(sections, input.budgetBytes);
  for (const [name, shown] of Object.entries(fitted.shown)) {
    const all = (sections[name] as string[]).length;
    if (shown < all) notes.push(`outline.${name}: ${shown} of ${all} lines fit this answer`);
  }
  const outline: Record<string, unknown> = {
    frames: fitted.lines.frames,
    ...(loose.length ? { open_board: `${hasFrames ? 'outside frames: ' : ''}${summary(loose)}` } : {}),
    clusters: fitted.lines.clusters,
    flows: fitted.lines.flows,
    overlaps: fitted.lines.overlaps,
    overlap_count: overlaps.items.length,
    ...(hasFrames ? { outside_frames: fitted.lines.outside_frames, outside_frames_count: loose.length } : {}),
    ambiguous: fitted.lines.ambiguous,
  };
  return { outline, notes, work: { flows: work.flows.done, clusters: work.clusters.done, overlaps: work.overlaps.done } };
}

/** Clusters of each container's sticky notes, as lines in the containers' reading order, and the near-misses. */
function clustersOf(byContainer: ReadonlyMap<string, OutlineItem[]>, input: OutlineInput, work: Work) {
  const lines: string[] = [];
  const near: [OutlineItem, OutlineItem][] = [];
  let cut = false;
  for (const [container, items] of byContainer) {
    const notes = items.filter((item) => item.type === 'sticky_note' && item.box);
    if (notes.length === 0) continue;
    const clustering = clusterNotes(notes.map((note) => note.box as Box), work);
    cut ||= clustering.cut;
    for (const [a, b] of clustering.near) near.push([notes[a] as OutlineItem, notes[b] as OutlineItem]);
    for (const cluster of clustering.clusters) {
      const members = cluster.map((i) => notes[i] as OutlineItem);
      const where = container ? `in ${idText(container)}` : 'on the board';
      const texts = members.map((note) => named(note, note.id));
      lines.push(`${where} ${members.length} ${members.length === 1 ? 'note' : 'notes'} ${boxText(boxAround(members.map((m) => m.box as Box)))}${coloursText(members, input.colours)}${sharedTags(members, input.tags)}: ${listed(texts, PER_LINE.clusterNotes)}`);
    }
  }
  return { lines, near, cut };
}

/** ` colour yellow`, ` colours yellow, blue`, or ` colours of 3 of 8 notes: yellow` (only the platform's colour names; others are `other`). */
function coloursText(notes: readonly OutlineItem[], colours: ReadonlyMap<string, string>): string {
  const read = notes.map((note) => colours.get(note.id)).filter((c): c is string => c !== undefined);
  if (read.length === 0) return '';
  const names = [...new Set(read.map((c) => ((STICKY_COLORS as readonly string[]).includes(c) ? c : 'other')))];
  const of = read.length < notes.length ? ` of ${read.length} of ${notes.length} notes:` : '';
  return ` ${names.length === 1 && !of ? 'colour' : 'colours'}${of} ${names.join(', ')}`;
}

/** Tags every note of the cluster has: ` #"Vote"`. */
function sharedTags(notes: readonly OutlineItem[], tags: ReadonlyMap<string, readonly string[]>): string {
  const first = tags.get((notes[0] as OutlineItem).id) ?? [];
  const shared = first.filter((tag) => notes.every((note) => tags.get(note.id)?.includes(tag)));
  return shared.map((tag) => ` #${quotedText(tag, 100)}`).join('');
}

/** Overlapping pairs among all items: frames with each other (ambiguous), and the rest (a frame and its own child exempt). */
function overlapsOf(items: readonly OutlineItem[], work: Work) {
  const placed = items.filter((item) => item.box);
  const exempt = (a: number, b: number) => {
    const [x, y] = [placed[a] as OutlineItem, placed[b] as OutlineItem];
    return x.parent === y.id || y.parent === x.id;
  };
  const found = findOverlaps(placed.map((item) => item.box as Box), exempt, Number.MAX_SAFE_INTEGER, work);
  const pairs = found.pairs.map(([a, b]) => [placed[a], placed[b]] as [OutlineItem, OutlineItem]);
  const isFrames = ([a, b]: [OutlineItem, OutlineItem]) => a.type === 'frame' && b.type === 'frame';
  return { frames: pairs.filter(isFrames), items: pairs.filter((pair) => !isFrames(pair)), cut: found.cut };
}

/** A flow chain as lines of at most PER_LINE.flowSteps steps; a longer one goes on in the next line from its last item. */
function chainLines(chain: FlowChain, connectors: OutlineInput['connectors'], byId: ReadonlyMap<string, OutlineItem>): string[] {
  const lines: string[] = [];
  for (let from = 0; from < chain.steps.length; from += PER_LINE.flowSteps) {
    const steps = chain.steps.slice(from, from + PER_LINE.flowSteps);
    const start = from === 0 ? chain.start : (chain.steps[from - 1] as { to: string }).to;
    const last = from + PER_LINE.flowSteps >= chain.steps.length;
    const arrows = steps.map((step) => {
      const caption = (connectors[step.connector] as { caption: string }).caption;
      return `${caption ? ` -[${quotedText(caption)}]-> ` : ' -> '}${named(byId.get(step.to), step.to)}`;
    });
    lines.push(`${named(byId.get(start), start)}${arrows.join('')}${last && chain.ends !== 'end' ? ` (${chain.ends})` : ''}`);
  }
  return lines;
}

/** Containers with a flow (connected items) that also hold shapes with text not connected to it. */
function unconnectedShapes(byContainer: ReadonlyMap<string, OutlineItem[]>, connected: ReadonlySet<string>, byId: ReadonlyMap<string, OutlineItem>): string[] {
  const sentences: string[] = [];
  for (const [container, items] of byContainer) {
    if (!items.some((item) => connected.has(item.id))) continue;
    const loose = items.filter((item) => item.type === 'shape' && !connected.has(item.id));
    if (loose.length === 0) continue;
    const where = container ? `frame ${named(byId.get(container), container)}` : 'the open board';
    sentences.push(`${where} has a flow, and ${loose.length} ${loose.length === 1 ? 'shape' : 'shapes'} not connected to it: ${listed(loose.map((s) => named(s, s.id)), 5)}`);
  }
  return sentences;
}

/** Items with the same text (any case, spaces flattened), the largest groups first; texts cut are not compared (their ends are unknown). */
function sameTexts(items: readonly OutlineItem[]): string[] {
  const groups = new Map<string, OutlineItem[]>();
  for (const item of items) {
    if (item.cut) continue;
    const key = item.text.replace(/\s+/gu, ' ').trim().toLowerCase();
    if (!key) continue;
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return [...groups.values()]
    .filter((group) => group.length > 1)
    .sort((a, b) => b.length - a.length)
    .map((group) => `${group.length} items have the same text ${quotedText((group[0] as OutlineItem).text)}: ${listed(group.map((item) => idText(item.id)), 5)}`);
}

function cutTexts(items: readonly OutlineItem[]): string[] {
  const cut = items.filter((item) => item.cut);
  if (cut.length === 0) return [];
  return [`${cut.length} ${cut.length === 1 ? 'text is' : 'texts are'} longer than ${OUTLINE_TEXT_CHARS} characters and cut here (ending with …): ${listed(cut.map((item) => idText(item.id)), 5)}; ReadBoard without format shows them whole`];
}

/**
 * Lines of each section within `budget` bytes in all: sections taking less than an equal share of
 * what is left get all they need, the rest share the remainder equally; each keeps its first lines.
 */
export function fitSections(sections: Readonly<Record<string, readonly string[]>>, budget: number): { lines: Record<string, string[]>; shown: Record<string, number> } {
  const need = Object.entries(sections).map(([name, lines]) => ({ name, lines, bytes: lines.reduce((sum, line) => sum + lineBytes(line), 0) }));
  const share = new Map<string, number>();
  let left = budget;
  const byNeed = [...need].sort((a, b) => a.bytes - b.bytes);
  byNeed.forEach((section, i) => {
    const room = Math.min(section.bytes, Math.floor(left / (byNeed.length - i)));
    share.set(section.name, room);
    left -= room;
  });
  const lines: Record<string, string[]> = {};
  const shown: Record<string, number> = {};
  for (const section of need) {
    let bytes = 0;
    const kept: string[] = [];
    for (const line of section.lines) {
      if (bytes + lineBytes(line) > (share.get(section.name) as number)) break;
      kept.push(line);
      bytes += lineBytes(line);
    }
    lines[section.name] = kept;
    shown[section.name] = kept.length;
  }
  return { lines, shown };
}
