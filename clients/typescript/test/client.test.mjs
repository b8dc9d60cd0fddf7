// The client against a real `memroute serve` that this test starts (127.0.0.1, with a token):
// `node --test` in clients/typescript/. MEMROUTE names the memroute command (default: on PATH).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

import { MemrouteClient, MemrouteError } from "../index.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const TOKEN = "ts-client-test-token-0123456789";
let server;
let dir;
let baseUrl;

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "memroute-ts-"));
  writeFileSync(join(dir, "tokens.txt"), `${TOKEN} *\n`);
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  const command = process.env.MEMROUTE ?? "memroute";
  server = spawn(command, ["serve", "--root", join(dir, "root"), "--port", String(port), "--tokens", join(dir, "tokens.txt"),
                           "--engine", "offline"], {
    env: { ...process.env, MEMROUTE_HOME: join(dir, "home"), MEMROUTE_ENGINE: "offline" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  server.stderr.on("data", (chunk) => { stderr += chunk; });
  const deadline = Date.now() + 60000;
  for (;;) {
    try {
      const r = await fetch(baseUrl + "/healthz");
      if (r.ok) break;
    } catch {
      // not listening yet
    }
    if (server.exitCode !== null || Date.now() > deadline) {
      throw new Error(`memroute serve did not start: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
});

after(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((r) => server.once("exit", r));
    server.kill("SIGTERM");
    await exited;
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("a turn is applied and the next session's context holds it", async () => {
  const client = new MemrouteClient({ baseUrl, token: TOKEN });
  assert.equal((await client.health()).ok, true);
  const applied = await client.submitTurn("nina", {
    messages: [{ role: "user", content: "I'm a nurse in Lyon and I prefer short answers" }],
    timestamp: "2026-07-30T10:00:00Z",
  }, { wait: true });
  assert.ok(applied.decisions.some((d) => d.route === "user" && d.key === "Role" && d.value === "nurse"), JSON.stringify(applied));
  assert.ok(applied.decisions.some((d) => d.route === "user" && d.key === "Location" && d.value === "Lyon"), JSON.stringify(applied));
  const queued = await client.submitTurn("nina", { messages: [{ role: "user", content: "thanks!" }] });
  assert.equal(queued.status, "queued");
  assert.match(queued.turn_id, /^t-/);
  const context = await client.context("nina");
  assert.match(context, /Role: nurse\n/);
  assert.match(context, /Location: Lyon/);
  assert.match(context, /Response style: short answers/);
});

test("a turn submitted without waiting is in the context read right after it", async () => {
  const client = new MemrouteClient({ baseUrl, token: TOKEN });
  for (const user of ["rosa", "sami", "tess"]) {  // a new user each time: the first turn creates the memory
    await client.submitTurn(user, { messages: [{ role: "user", content: "I'm a nurse in Lyon." }] });
    const context = await client.context(user);
    assert.match(context, /Role: nurse\n/, context);
    assert.match(context, /Location: Lyon/, context);
    assert.equal((await client.profile(user)).fields.find((f) => f.key === "Location").value, "Lyon");
  }
});

test("profile, recall, corrections, the memory tool, history and the decision log", async () => {
  const client = new MemrouteClient({ baseUrl, token: TOKEN });
  await client.submitTurn("omar", { messages: [{ role: "user", content: "Yesterday we shipped the billing service." }],
                                    timestamp: "2026-07-30T10:00:00Z" }, { wait: true });
  await client.setField("omar", "Role", "staff engineer");
  const profile = await client.profile("omar");
  assert.equal(profile.fields.find((f) => f.key === "Role").value, "staff engineer");
  assert.equal(profile.entries[0].date, "2026-07-29");
  const hits = await client.recall("omar", "billing", 3);
  assert.ok(hits.hits.length >= 1);
  const tool = await client.memoryTool("omar", { action: "add", target: "memory", content: "[2026-07-30] docs: moved to Vercel" });
  assert.equal(tool.success, true);
  await client.deleteField("omar", "Role", { purge: true });
  assert.equal((await client.profile("omar")).fields.some((f) => f.key === "Role"), false);
  assert.ok((await client.history("omar")).changes.length >= 3);
  const logged = (await client.decisions("omar")).decisions.find((d) => d.route === "memory");
  assert.ok(logged.rule && logged.turn_id, JSON.stringify(logged));
  const same = await client.decisions("omar", { turnId: logged.turn_id, rule: logged.rule });
  assert.deepEqual(same.decisions.map((d) => d.rule), [logged.rule]);
  assert.deepEqual((await client.decisions("omar", { rule: "no-such-rule" })).decisions, []);
  await client.deleteUser("omar");
});

test("errors carry the API's status and stable code", async () => {
  const client = new MemrouteClient({ baseUrl, token: TOKEN });
  await assert.rejects(client.profile("nobody"), (e) => e instanceof MemrouteError && e.status === 404 && e.code === "user_not_found");
  const anonymous = new MemrouteClient({ baseUrl });
  await assert.rejects(anonymous.profile("nina"), (e) => e instanceof MemrouteError && e.status === 401 && e.code === "unauthorized");
  await assert.rejects(client.submitTurn("nina", { messages: [] }), (e) => e.status === 422);
});

function rawDelete(path) {
  // node:http sends the path as written: no URL parsing removes its dot segments.
  return new Promise((resolve, reject) => {
    const req = httpRequest(baseUrl + "/", { method: "DELETE", path, headers: { authorization: `Bearer ${TOKEN}` } }, (res) => {
      let body = "";
      res.on("data", (c) => { body += c; });
      res.on("end", () => resolve({ status: res.statusCode, location: res.headers.location, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

test("a delete never erases more than it names: dot segments, trailing slashes, bad ids", async () => {
  const client = new MemrouteClient({ baseUrl, token: TOKEN });
  await client.setField("tess", "Role", "pilot");
  await assert.rejects(client.deleteField("tess", "..", { purge: true }), (e) => e.status === 422);
  await assert.rejects(client.deleteEntry("tess", "..", { purge: true }), (e) => e.status === 422);
  for (const path of ["/v1/users/tess/fields/..", "/v1/users/tess/fields/.", "/v1/users/tess/fields/%2E%2E?purge=true",
                      "/v1/users/tess/entries/..", "/v1/users/tess/entries/not-an-id", "/v1/users/tess/entries/%2e"]) {
    const answer = await rawDelete(path);
    assert.equal(answer.status, 422, `${path}: ${answer.status} ${answer.body}`);
    assert.equal(JSON.parse(answer.body).error.code, "invalid_request");
  }
  // what URL parsing makes of fields/.. : the server does not send it on to DELETE /v1/users/tess
  const slash = await fetch(baseUrl + "/v1/users/tess/", { method: "DELETE", headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(slash.status, 404);
  for (const method of ["DELETE", "POST", "PUT"]) {
    const answer = await fetch(baseUrl + "/v1/users/tess/memory/", { method, redirect: "manual",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" }, body: method === "DELETE" ? undefined : "{}" });
    assert.ok(answer.status < 300 || answer.status >= 400, `${method}: ${answer.status}`);
  }
  assert.equal((await client.profile("tess")).fields.find((f) => f.key === "Role").value, "pilot");
});

test("schema.d.ts has every schema and property of the live server's /openapi.json", async () => {
  const schema = await (await fetch(baseUrl + "/openapi.json")).json();
  const types = readFileSync(join(HERE, "..", "schema.d.ts"), "utf-8");
  for (const [name, s] of Object.entries(schema.components.schemas)) {
    const block = types.match(new RegExp(`export (?:interface ${name} \\{([^}]*)\\}|type ${name} =)`));
    assert.ok(block, `schema.d.ts lacks ${name}: run generate_types.py`);
    for (const property of Object.keys(s.properties ?? {})) {
      assert.match(block[1] ?? "", new RegExp(`\\b${property}\\??:`), `${name}.${property} missing`);
    }
  }
  for (const [path, ops] of Object.entries(schema.paths)) {
    for (const method of Object.keys(ops)) {
      assert.ok(types.includes(`"${method.toUpperCase()} ${path}"`), `Operations lacks ${method} ${path}`);
    }
  }
});
