/**
 * What a tool list costs an agent, measured two ways: what the model sees (name, description,
 * input schema) and the whole tools/list payload. Tokens are counted with a real BPE tokenizer
 * (o200k_base), loaded only when asked for.
 */
import type { Tool } from '@modelcontextprotocol/server';

export interface ContextSize {
  tools: number;
  /** JSON bytes of name, description and input schema: what a model is given. */
  modelVisibleBytes: number;
  /** JSON bytes of the whole tools/list result. */
  listBytes: number;
  /** Tokens of the whole tools/list result. */
  listTokens: number;
}

export function modelVisibleBytes(tool: Tool): number {
  return Buffer.byteLength(JSON.stringify({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }));
}

let encoder: Promise<{ encode(text: string): number[] }> | undefined;

export async function countTokens(text: string): Promise<number> {
  encoder ??= (async () => {
    const [{ Tiktoken }, { default: ranks }] = await Promise.all([import('js-tiktoken/lite'), import('js-tiktoken/ranks/o200k_base')]);
    return new Tiktoken(ranks);
  })();
  return (await encoder).encode(text).length;
}

export async function contextSize(listing: readonly Tool[]): Promise<ContextSize> {
  const list = JSON.stringify({ tools: listing });
  return {
    tools: listing.length,
    modelVisibleBytes: listing.reduce((sum, tool) => sum + modelVisibleBytes(tool), 0),
    listBytes: Buffer.byteLength(list),
    listTokens: await countTokens(list),
  };
}
