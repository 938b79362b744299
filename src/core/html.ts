/** Text placed into HTML as text: every character that could start markup or end an attribute is an entity. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
