// Path segments, without a server: a fetch that records what it is asked. `node --test` in clients/typescript/.
import { test } from "node:test";
import assert from "node:assert/strict";

import { MemrouteClient, MemrouteError, segment } from "../index.mjs";

function recording() {
  const calls = [];
  const fetch = async (url, init) => {
    calls.push({ url: String(url), method: init.method, redirect: init.redirect });
    return new Response(JSON.stringify({ success: true }), { status: 200, headers: { "content-type": "application/json" } });
  };
  return { calls, client: new MemrouteClient({ baseUrl: "http://127.0.0.1:1", fetch }) };
}

const refused = (e) => e instanceof MemrouteError && e.status === 422 && e.code === "invalid_request";

test("a dot segment is never sent: deleting field '..' or entry '.' cannot reach the user", async () => {
  const { calls, client } = recording();
  for (const key of ["..", ".", "", "   ", "...", " .. "]) {
    await assert.rejects(client.deleteField("tess", key, { purge: true }), refused, JSON.stringify(key));
    await assert.rejects(client.deleteEntry("tess", key, { purge: true }), refused, JSON.stringify(key));
    await assert.rejects(client.setField("tess", key, "x"), refused, JSON.stringify(key));
  }
  for (const user of ["..", ".", ""]) {
    await assert.rejects(client.deleteUser(user), refused);
    await assert.rejects(client.profile(user), refused);
  }
  assert.deepEqual(calls, []);
});

test("a raw request with a dot segment, plain or percent-encoded, is refused before fetch", async () => {
  const { calls, client } = recording();
  for (const path of ["/v1/users/tess/fields/..", "/v1/users/tess/fields/%2E%2E", "/v1/users/tess/fields/.%2e",
                      "/v1/users/tess/./fields/x", "/v1/users/tess/fields/..?purge=true", "/v1/users/tess\\..\\"]) {
    await assert.rejects(client.request("DELETE", path), refused, path);
  }
  assert.deepEqual(calls, []);
});

test("every segment is percent-encoded: the URL fetch gets names exactly what was asked", async () => {
  const { calls, client } = recording();
  await client.deleteField("tess", "a/b?c#d ..%2E", { purge: true });
  await client.deleteField("tess", "..a");
  await client.deleteEntry("team+core", "0123456789ab");
  await client.setField("ana", "Sprache/Language", "Deutsch");
  assert.deepEqual(calls.map((c) => `${c.method} ${new URL(c.url).pathname}${new URL(c.url).search}`), [
    "DELETE /v1/users/tess/fields/a%2Fb%3Fc%23d%20..%252E?purge=true",
    "DELETE /v1/users/tess/fields/..a",
    "DELETE /v1/users/team%2Bcore/entries/0123456789ab",
    "PUT /v1/users/ana/fields/Sprache%2FLanguage",
  ]);
  assert.equal(segment("กุญแจ"), encodeURIComponent("กุญแจ"));
  assert.throws(() => segment(".."), refused);
});
