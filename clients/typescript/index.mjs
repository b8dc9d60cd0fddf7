// memroute's HTTP API from JavaScript and TypeScript: no dependencies beyond the platform's fetch
// (Node 18+, Deno, Bun, browsers). Types: index.d.ts, generated from the server's OpenAPI schema.

export class MemrouteError extends Error {
  /** @param {number} status @param {string} code @param {string} message @param {unknown} [details] */
  constructor(status, code, message, details) {
    super(`${code}: ${message}`);
    this.name = "MemrouteError";
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

// "." and ".." (also written %2E) are dot segments: URL parsing removes them with the segment before,
// so DELETE .../fields/.. would reach DELETE /v1/users/USER, the whole user. They are never sent.
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

function invalid(message) {
  return new MemrouteError(422, "invalid_request", message);
}

/** One path segment, percent-encoded; "", "." and ".." are refused (they name no field, entry or user). */
export function segment(value, what = "a path segment") {
  const text = String(value ?? "");
  if (text.trim() === "" || /^\.+$/.test(text.trim())) {
    throw invalid(`${what} cannot be empty, "." or ".."`);
  }
  return encodeURIComponent(text);
}

export class MemrouteClient {
  /** @param {{baseUrl?: string, token?: string, fetch?: typeof fetch, timeoutMs?: number}} [options] */
  constructor(options = {}) {
    this.baseUrl = (options.baseUrl ?? "http://127.0.0.1:8750").replace(/\/+$/, "");
    this.token = options.token;
    this.fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.timeoutMs = options.timeoutMs ?? 60000;
  }

  async request(method, path, { query, body } = {}) {
    const pathOnly = String(path).split(/[?#]/, 1)[0];
    if (pathOnly.split(/[\\/]/).some((part) => DOT_SEGMENT.test(part))) {
      throw invalid(`the path ${JSON.stringify(pathOnly)} has a "." or ".." segment: encode each segment (segment())`);
    }
    const url = new URL(this.baseUrl + path);
    for (const [k, v] of Object.entries(query ?? {})) {
      if (v !== undefined && v !== null) url.searchParams.set(k, String(v));
    }
    const headers = { accept: "application/json" };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    const response = await this.fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const text = await response.text();
    let data = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch {
      data = null;
    }
    if (!response.ok) {
      const error = data && data.error ? data.error : { code: "http_" + response.status, message: text.slice(0, 200) };
      throw new MemrouteError(response.status, error.code, error.message, error.details);
    }
    return data;
  }

  #user(user) {
    return "/v1/users/" + segment(user, "a user id");
  }

  /** Queue a chat turn (202, durable); with `wait: true`, 200 with its decisions once applied. */
  async submitTurn(user, turn, { wait = false } = {}) {
    return this.request("POST", this.#user(user) + "/turns", { body: turn, query: wait ? { wait: "true" } : {} });
  }
  async profile(user) {
    return this.request("GET", this.#user(user) + "/profile");
  }
  /** The block for a system prompt; the server applies the user's turns it has accepted first (up to 10 s). */
  async context(user) {
    return (await this.request("GET", this.#user(user) + "/context")).context;
  }
  async recall(user, q, k) {
    return this.request("GET", this.#user(user) + "/recall", { query: { q, k } });
  }
  async history(user) {
    return this.request("GET", this.#user(user) + "/history");
  }
  /** The decision log; `turnId` keeps one turn's, `rule` one rule id or kind ("guard", "fact/role-noun"). */
  async decisions(user, { turnId, rule } = {}) {
    return this.request("GET", this.#user(user) + "/decisions", { query: { turn_id: turnId, rule } });
  }
  async setField(user, key, value, section) {
    return this.request("PUT", this.#user(user) + "/fields/" + segment(key, "a field key"), { body: { value, section } });
  }
  async deleteField(user, key, { purge = false } = {}) {
    return this.request("DELETE", this.#user(user) + "/fields/" + segment(key, "a field key"), { query: purge ? { purge: "true" } : {} });
  }
  async deleteEntry(user, entryId, { purge = false } = {}) {
    return this.request("DELETE", this.#user(user) + "/entries/" + segment(entryId, "an entry id"), { query: purge ? { purge: "true" } : {} });
  }
  async deleteUser(user) {
    return this.request("DELETE", this.#user(user));
  }
  /** The Hermes Agent memory tool: add / replace / remove on user or memory. */
  async memoryTool(user, call) {
    return this.request("POST", this.#user(user) + "/memory", { body: call });
  }
  async status() {
    return this.request("GET", "/v1/status");
  }
  async health() {
    return this.request("GET", "/healthz");
  }
}
