// Runs against a running SelfImprint API: SELFIMPRINT_API_URL and SELFIMPRINT_API_KEY (a tenant
// key). tests/e2e/test_typescript_client.py runs it on the test stack.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";

import { SelfImprintClient, SelfImprintError } from "../src/index.js";

const baseUrl = process.env.SELFIMPRINT_API_URL ?? "";
const apiKey = process.env.SELFIMPRINT_API_KEY ?? "";
const memory = new SelfImprintClient({ baseUrl, apiKey });

async function extracted(userId: string): Promise<void> {
  const deadline = Date.now() + 300_000;
  while ((await memory.getUser(userId)).extraction.pending > 0) {
    assert.ok(Date.now() < deadline, "messages still pending");
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

test("a chat turn: store, read your writes, correct, forget, export", async () => {
  const user = `ts-${randomUUID().slice(0, 8)}`;
  const created = await memory.putUser(user, { plan: "paid", time_zone: "Europe/Berlin" });
  assert.equal(created.created, true);

  const message = {
    id: `m-${randomUUID().slice(0, 8)}`,
    role: "user" as const,
    text: "My dog Biscuit is afraid of thunderstorms.",
    sent_at: "2026-03-03T20:05:00+01:00",
  };
  const accepted = await memory.postMessages(user, [message]);
  assert.equal(accepted.accepted, 1);
  assert.equal((await memory.postMessages(user, [message])).duplicates, 1);

  const ctx = await memory.context(user, { message: "How is Biscuit?", after_message: message.id });
  const shown = ctx.context + (ctx.pending_messages ?? []).map((m) => m.text).join(" ");
  assert.match(shown, /Biscuit/);

  await extracted(user);
  const portrait = await memory.portraitData(user);
  const biscuit = portrait.memories.find((m) => m.content.includes("Biscuit"));
  assert.ok(biscuit, "the portrait lists the memory with its id");
  assert.match(await memory.portrait(user), /Biscuit/);
  const pinned = await memory.correctMemory(user, biscuit.id, { pinned: true });
  assert.equal(pinned.is_pinned, true);
  assert.equal((await memory.memory(user, biscuit.id)).memory.id, biscuit.id);
  assert.ok((await memory.memories(user, { limit: 10 })).memories.length >= 1);
  assert.deepEqual((await memory.tensions(user)).tensions, []);
  assert.deepEqual((await memory.summaries(user)).summaries, []);

  const plan = await memory.forget(user, { topic: "Biscuit" });
  assert.equal(plan.dry_run, true);
  assert.ok(plan.memories.some((m) => m.id === biscuit.id));
  const document = await memory.export(user);
  assert.ok((document.messages ?? []).some((m) => m.id === message.id));

  await memory.deleteMemory(user, biscuit.id);
  await memory.deleteMemory(user, biscuit.id); // idempotent
  const erasure = await memory.deleteUser(user);
  assert.equal((await memory.operation(erasure.operation_id)).operation_id, erasure.operation_id);
});

test("errors carry the API's status and code", async () => {
  await assert.rejects(memory.getUser(`nobody-${randomUUID().slice(0, 8)}`), (error: unknown) => {
    assert.ok(error instanceof SelfImprintError);
    assert.equal(error.status, 404);
    assert.equal(error.code, "unknown_user");
    return true;
  });
  const stranger = new SelfImprintClient({ baseUrl, apiKey: "si_wrong_key", retries: 0 });
  await assert.rejects(stranger.getUser("alice"), { status: 401, code: "unauthorized" });
  await assert.rejects(memory.putUser("bad id!", {}), { status: 422, code: "invalid_request" });
});
