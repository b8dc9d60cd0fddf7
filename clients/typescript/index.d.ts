// Types of the memroute client (index.mjs). The API's own types are in schema.d.ts, generated from
// the server's OpenAPI schema.
import type { FieldIn, Operations, ToolIn, TurnIn } from "./schema.js";

export * from "./schema.js";

type Answer<K extends keyof Operations> = Operations[K]["response"];

export interface ClientOptions {
  /** default http://127.0.0.1:8750 */
  baseUrl?: string;
  /** a bearer token from the server's token file */
  token?: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

export declare class MemrouteError extends Error {
  readonly status: number;
  /** the API's stable error code: user_not_found, unauthorized, blocked, over_cap, ... */
  readonly code: string;
  readonly details: unknown;
}

/** One path segment, percent-encoded; throws MemrouteError (422 invalid_request) for "", "." and "..",
 * which URL parsing would remove together with the segment before them. */
export declare function segment(value: string, what?: string): string;

export declare class MemrouteClient {
  constructor(options?: ClientOptions);
  readonly baseUrl: string;
  request(method: string, path: string, options?: { query?: Record<string, unknown>; body?: unknown }): Promise<unknown>;
  submitTurn(user: string, turn: TurnIn, options?: { wait?: boolean }): Promise<Answer<"POST /v1/users/{user}/turns">>;
  profile(user: string): Promise<Answer<"GET /v1/users/{user}/profile">>;
  /** The block for a system prompt; the server applies the user's turns it has accepted first (up to 10 s). */
  context(user: string): Promise<string>;
  recall(user: string, q: string, k?: number): Promise<Answer<"GET /v1/users/{user}/recall">>;
  history(user: string): Promise<Answer<"GET /v1/users/{user}/history">>;
  /** The decision log; `turnId` keeps one turn's, `rule` one rule id or kind ("guard", "fact/role-noun"). */
  decisions(user: string, options?: { turnId?: string; rule?: string }): Promise<Answer<"GET /v1/users/{user}/decisions">>;
  setField(user: string, key: string, value: FieldIn["value"], section?: FieldIn["section"]): Promise<Answer<"PUT /v1/users/{user}/fields/{key}">>;
  deleteField(user: string, key: string, options?: { purge?: boolean }): Promise<Answer<"DELETE /v1/users/{user}/fields/{key}">>;
  deleteEntry(user: string, entryId: string, options?: { purge?: boolean }): Promise<Answer<"DELETE /v1/users/{user}/entries/{entry_id}">>;
  deleteUser(user: string): Promise<Answer<"DELETE /v1/users/{user}">>;
  memoryTool(user: string, call: ToolIn): Promise<Answer<"POST /v1/users/{user}/memory">>;
  status(): Promise<Answer<"GET /v1/status">>;
  health(): Promise<Answer<"GET /healthz">>;
}
