import type { SkillsExtension } from '@modelcontextprotocol/server/ext/skills';
import type { Logger } from './logger.js';

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
  logger: Logger;
  skills?: () => Promise<readonly SkillText[]>;
}

/** The SKILL.md of one skill: JSON strings are valid YAML, so a description may hold any character. */
export function skillMarkdown(skill: SkillText): string {
  return `---\nname: ${JSON.stringify(skill.name)}\ndescription: ${JSON.stringify(skill.description)}\n---\n\n${skill.body.trim()}\n`;
}

// One catalog per server per process: stateless HTTP attaches it to a fresh protocol server per request.
const catalogs = new WeakMap<SkillHost, Promise<SkillsExtension>>();

/**
 * The server's skills as the SDK's skills extension, built once (digests computed, frontmatter
 * checked strictly, so a bad skill text fails at the first connection rather than being dropped),
 * or undefined for a server without skills. The extension and the texts load here, not at start.
 */
export function skillsExtensionFor(host: SkillHost): Promise<SkillsExtension> | undefined {
  const loadTexts = host.skills;
  if (!loadTexts) return undefined;
  let catalog = catalogs.get(host);
  if (!catalog) {
    catalog = (async () => {
      const [{ SkillsExtension: Extension, memorySkillFiles }, texts] = await Promise.all([import('@modelcontextprotocol/server/ext/skills'), loadTexts()]);
      const files = Object.fromEntries(texts.map((skill) => [`${skill.name}/SKILL.md`, skillMarkdown(skill)]));
      return Extension.load(memorySkillFiles(files), {
        prefix: host.id,
        strict: true,
        onWarning: (warning) => host.logger.warn({ path: warning.path, problem: warning.message }, 'skill problem'),
      });
    })();
    // A failed build is not cached: the next connection tries again.
    catalog.catch(() => catalogs.delete(host));
    catalogs.set(host, catalog);
  }
  return catalog;
}
