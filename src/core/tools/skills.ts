import type { Skill, SkillSource, SkillsExtension } from '@modelcontextprotocol/server/ext/skills';
import type { Logger } from '../logger.js';
import { restyle } from './listing.js';
import type { NameStyle } from './names.js';

/** One workflow served as an MCP skill (SEP-2640): written as data in each server's skills.ts. */
export interface SkillText {
  /** Lower-case words joined by hyphens; also the skill's folder (`skill://<server id>/<name>/SKILL.md`). */
  name: string;
  /** When to use it: what a host shows before loading the skill. */
  description: string;
  /** The markdown after the frontmatter. */
  body: string;
}

/** What a server needs to serve skills: its id (the URI prefix) and a loader of its skill texts (imported on first use). */
export interface SkillHost {
  id: string;
  /** The tool-name prefix (`IncidentOps`): the skills' tool names follow the connection's style. */
  name: string;
  logger: Logger;
  skills?: () => Promise<readonly SkillText[]>;
}

/** The SKILL.md of one skill: JSON strings are valid YAML, so a description may hold any character. */
export function skillMarkdown(skill: SkillText): string {
  return `---\nname: ${JSON.stringify(skill.name)}\ndescription: ${JSON.stringify(skill.description)}\n---\n\n${skill.body.trim()}\n`;
}

/** One skill as served: its entry (digests and frontmatter, built by the SDK) and its one file. */
interface ServedSkill {
  entry: Skill;
  directory: string;
  name: string;
  description: string;
  markdown: string;
}

// One extension per server and name style per process: stateless HTTP attaches it to a fresh protocol server per request.
const extensions = new WeakMap<SkillHost, Map<NameStyle, Promise<SkillsExtension>>>();

/**
 * The server's skills as the SDK's skills extension (SEP-2640: skills/list, skills/get, the skill://
 * resources and directory reads), or undefined for a server without skills. Only the extension's
 * module loads before the first connection is answered; the texts load, and the entries (digests,
 * frontmatter checks) are built, on the first skills or resources request, so that a stdio start
 * does not wait for them.
 */
export function skillsExtensionFor(host: SkillHost, style: NameStyle = 'contract'): Promise<SkillsExtension> | undefined {
  const loaded = host.skills;
  if (!loaded) return undefined;
  // Tool names in the texts as the connection's tools/list shows them (listing.ts restyle).
  const loadTexts = () => loaded().then((texts) => texts.map((text) => ({ ...text, description: restyle(text.description, style, host.name), body: restyle(text.body, style, host.name) })));
  let byStyle = extensions.get(host);
  if (!byStyle) extensions.set(host, (byStyle = new Map()));
  let extension = byStyle.get(style);
  if (!extension) {
    extension = import('@modelcontextprotocol/server/ext/skills').then(({ SkillsExtension: Extension, skillEntry }) => {
      let served: Promise<ServedSkill[]> | undefined;
      const skills = () =>
        (served ??= loadTexts().then((texts) =>
          Promise.all(
            texts.map(async (text) => {
              const markdown = skillMarkdown(text);
              // skillEntry checks the frontmatter and the name rules, and throws on any problem.
              const entry = await skillEntry(`${host.id}/${text.name}`, { 'SKILL.md': markdown });
              return { entry, directory: entry.uri.slice(0, -'/SKILL.md'.length), name: text.name, description: text.description, markdown };
            }),
          ),
        )).catch((error: unknown) => {
          // Not cached: a later request tries again (and says why in the log).
          served = undefined;
          host.logger.error({ err: error instanceof Error ? error.message : String(error) }, 'skills could not be built');
          throw error;
        });
      const byUri = async (uri: string, key: 'entry' | 'directory') => (await skills()).find((skill) => (key === 'entry' ? skill.entry.uri : skill.directory) === uri);
      const source: SkillSource = {
        list: async () => ({ skills: (await skills()).map((skill) => skill.entry) }),
        get: async (uri) => (await byUri(uri, 'entry'))?.entry,
        read: async (uri) => {
          const skill = await byUri(uri, 'entry');
          return skill ? { text: skill.markdown, mimeType: 'text/markdown' } : undefined;
        },
        readDirectory: async (uri) => {
          const skill = await byUri(uri.replace(/\/$/, ''), 'directory');
          return skill ? { resources: [{ uri: skill.entry.uri, name: 'SKILL.md', mimeType: 'text/markdown' }] } : undefined;
        },
        listResources: async () => (await skills()).map((skill) => ({ uri: skill.entry.uri, name: skill.name, description: skill.description, mimeType: 'text/markdown' })),
      };
      return new Extension({ source, strict: true, onWarning: (warning) => host.logger.warn({ path: warning.path, problem: warning.message }, 'skill problem') });
    });
    byStyle.set(style, extension);
  }
  return extension;
}
