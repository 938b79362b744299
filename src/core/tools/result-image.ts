/**
 * A tool's picture (CanvasApi.ViewBoard): attached to its result data under a symbol the JSON
 * never shows, and sent by the core as one MCP image block after the text. So the picture is
 * never part of structuredContent, never counted or cut by the result budget (result-budget.ts,
 * which bounds text), and tools without one answer exactly as before.
 */
export const RESULT_IMAGE: unique symbol = Symbol('result image');

export interface ResultImage {
  mimeType: 'image/png';
  /** Base64. */
  data: string;
}

/** The data with its picture attached (not enumerable: a copy of the data, e.g. marked as untrusted, leaves it behind). */
export function withImage<T extends object>(data: T, image: ResultImage): T {
  Object.defineProperty(data, RESULT_IMAGE, { value: image, enumerable: false });
  return data;
}

export function imageOf(data: object): ResultImage | undefined {
  return (data as { [RESULT_IMAGE]?: ResultImage })[RESULT_IMAGE];
}
