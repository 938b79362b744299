/**
 * A stand-in for the model APIs agent clients talk to, on loopback: the Anthropic Messages API
 * (`POST /v1/messages`, as Claude Code sends it with ANTHROPIC_BASE_URL) and the Gemini API
 * (`POST /v1beta/models/<model>:generateContent` and `:streamGenerateContent`, as Gemini CLI sends
 * it with GOOGLE_GEMINI_BASE_URL), each plain or streamed in the client's SSE format.
 *
 * It plays one short conversation: while the last message carries no tool result it asks for one
 * tool (chosen by `pickTool` from the names the client offered), and once a result is there it
 * answers with FINAL_TEXT. Every request is recorded with the tool names it offered and the tool
 * results it carried, so a test can check what a real client sent to the model.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export const FINAL_TEXT = 'Done: the tool answered.';
/** Far above what a client sends (a request with every CanvasApi tool is about 200 KB). */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

export interface ModelRequest {
  api: 'anthropic' | 'gemini' | 'unknown';
  method: string;
  path: string;
  /** The tool (function) names the request offered the model, in its order. */
  toolNames: string[];
  /** The text of each tool result in the request's last message. */
  toolResults: string[];
  /** The tool this stand-in asked for in its answer, if any. */
  calledTool?: string;
}

export interface ModelStandIn {
  url: string;
  requests: ModelRequest[];
  close(): Promise<void>;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** Text of an Anthropic tool_result's content: a string or an array of blocks. */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  return list(content)
    .map((block) => (isObject(block) && typeof block.text === 'string' ? block.text : JSON.stringify(block)))
    .join('\n');
}

function anthropicAnswer(body: Json, request: ModelRequest, pickTool: (names: string[]) => string | undefined, res: http.ServerResponse): void {
  request.toolNames = list(body.tools).flatMap((tool) => (isObject(tool) && typeof tool.name === 'string' ? [tool.name] : []));
  const last = list(body.messages).at(-1);
  const lastBlocks = isObject(last) ? list(last.content) : [];
  request.toolResults = lastBlocks.flatMap((block) => (isObject(block) && block.type === 'tool_result' ? [resultText(block.content)] : []));
  const tool = request.toolResults.length === 0 ? pickTool(request.toolNames) : undefined;
  request.calledTool = tool;
  const content: Json[] = tool ? [{ type: 'tool_use', id: 'toolu_stand_in_1', name: tool, input: {} }] : [{ type: 'text', text: FINAL_TEXT }];
  const stopReason = tool ? 'tool_use' : 'end_turn';
  const message = { id: 'msg_stand_in', type: 'message', role: 'assistant', model: body.model, content: [] as Json[], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } };
  if (body.stream !== true) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ...message, content, stop_reason: stopReason }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const event = (type: string, data: Json) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  event('message_start', { message });
  content.forEach((block, index) => {
    if (block.type === 'text') {
      event('content_block_start', { index, content_block: { type: 'text', text: '' } });
      event('content_block_delta', { index, delta: { type: 'text_delta', text: block.text } });
    } else {
      event('content_block_start', { index, content_block: { ...block, input: {} } });
      event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } });
    }
    event('content_block_stop', { index });
  });
  event('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 1 } });
  event('message_stop', {});
  res.end();
}

function geminiAnswer(body: Json, request: ModelRequest, form: 'json' | 'json-array' | 'sse', pickTool: (names: string[]) => string | undefined, res: http.ServerResponse): void {
  request.toolNames = list(body.tools).flatMap((tool) =>
    isObject(tool) ? list(tool.functionDeclarations).flatMap((declaration) => (isObject(declaration) && typeof declaration.name === 'string' ? [declaration.name] : [])) : [],
  );
  const last = list(body.contents).at(-1);
  const lastParts = isObject(last) ? list(last.parts) : [];
  // Gemini CLI wraps a tool's text as { output: text }; anything else is kept as JSON.
  request.toolResults = lastParts.flatMap((part) => {
    if (!isObject(part) || !isObject(part.functionResponse)) return [];
    const response = part.functionResponse.response;
    return [isObject(response) && typeof response.output === 'string' ? response.output : JSON.stringify(response)];
  });
  const tool = request.toolResults.length === 0 ? pickTool(request.toolNames) : undefined;
  request.calledTool = tool;
  const parts = tool ? [{ functionCall: { name: tool, args: {} } }] : [{ text: FINAL_TEXT }];
  const answer = {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
    modelVersion: 'stand-in',
  };
  if (form !== 'sse') {
    res.writeHead(200, { 'content-type': 'application/json' });
    // streamGenerateContent without alt=sse answers a JSON array of chunks.
    res.end(JSON.stringify(form === 'json' ? answer : [answer]));
    return;
  }
  // The Gemini API streams one JSON chunk per SSE `data:` line (alt=sse); one chunk is a whole answer.
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.end(`data: ${JSON.stringify(answer)}\r\n\r\n`);
}

/** Starts the stand-in on 127.0.0.1 (a free port). `pickTool` gets the offered names and returns the one to call, or none. */
export async function startModelStandIn(pickTool: (names: string[]) => string | undefined): Promise<ModelStandIn> {
  const requests: ModelRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        res.writeHead(413, { 'content-type': 'application/json', connection: 'close' });
        res.end(JSON.stringify({ error: { message: `request body over ${MAX_BODY_BYTES} bytes` } }));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stand-in');
      const request: ModelRequest = { api: 'unknown', method: req.method ?? '', path: url.pathname, toolNames: [], toolResults: [] };
      requests.push(request);
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = undefined;
      }
      const gemini = /^\/v1(?:beta|alpha)?\/models\/[^/:]+:(generateContent|streamGenerateContent)$/.exec(url.pathname);
      if (req.method === 'POST' && url.pathname === '/v1/messages' && isObject(body)) {
        request.api = 'anthropic';
        anthropicAnswer(body, request, pickTool, res);
      } else if (req.method === 'POST' && gemini && isObject(body)) {
        request.api = 'gemini';
        const form = gemini[1] === 'generateContent' ? 'json' : url.searchParams.get('alt') === 'sse' ? 'sse' : 'json-array';
        geminiAnswer(body, request, form, pickTool, res);
      } else {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `the stand-in does not serve ${req.method} ${url.pathname}` } }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
