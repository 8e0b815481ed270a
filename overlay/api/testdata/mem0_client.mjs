// Mem0's own client (npm mem0ai, MemoryClient) pointed at atma's Mem0 surface: add, search,
// getAll, get, update, history, delete, deleteAll; prints one JSON line of what came back.
// Usage: node mem0_client.mjs PKG_DIR HOST TOKEN
import { pathToFileURL } from "node:url";
import path from "node:path";

const [pkgDir, host, token] = process.argv.slice(2);
const { MemoryClient } = await import(pathToFileURL(path.join(pkgDir, "node_modules/mem0ai/dist/index.mjs")).href);
const client = new MemoryClient({ apiKey: token, host });
const out = { ms: {} };
const timed = async (name, f) => {
  const t0 = performance.now();
  const r = await f();
  out.ms[name] = Math.round((performance.now() - t0) * 10) / 10;
  return r;
};
const added = await timed("add", () => client.add([{ role: "user", content: "I live in Berlin." }], { user_id: "alice" }));
out.added = added.results.length;
const moved = await client.add("I moved to Lisbon last month.", { user_id: "alice" });
const search = await timed("search", () => client.search("Where do I live now?", { filters: { user_id: "alice" } }));
out.searchFirst = search.results[0].memory;
out.searchLabel = search.results[0].metadata.label;
const all = await timed("getAll", () => client.getAll({ filters: { user_id: "alice" } }));
out.all = all.results.length;
const id = moved.results[0].id;
const one = await timed("get", () => client.get(id));
out.get = one.memory;
const updated = await timed("update", () => client.update(id, { text: "I moved to Porto this week." }));
out.updated = updated.memory;
const history = await timed("history", () => client.history(updated.id));
out.history = history.map((h) => h.newMemory);
out.deleted = (await client.delete(added.results[0].id)).message;
out.deletedAll = (await client.deleteAll({ user_id: "alice" })).message;
try {
  await client.users();
  out.unsupported = "served";
} catch (e) {
  out.unsupported = String(e.message).slice(0, 80);
}
console.log(JSON.stringify(out));
