// The MCP TypeScript SDK as a client of `atma overlay mcp` over stdio: it spawns the
// command, initialises, adds a memory, queries, and prints one JSON line.
// Usage: node mcp_stdio_client.mjs SDK_DIR COMMAND ARGS...
import { pathToFileURL } from "node:url";
import path from "node:path";

const [sdkDir, command, ...args] = process.argv.slice(2);
const load = (p) => import(pathToFileURL(path.join(sdkDir, "node_modules/@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await load("client/index.js");
const { StdioClientTransport } = await load("client/stdio.js");

const client = new Client({ name: "atma-test", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command, args, env: process.env, stderr: "ignore" }));
const tools = await client.listTools();
const add = await client.callTool({ name: "memory_add", arguments: { content: "I moved to Lisbon last month." } });
const query = await client.callTool({ name: "memory_query", arguments: { query: "Where do I live now?" } });
console.log(JSON.stringify({ tools: tools.tools.length, addError: add.isError ?? false, query: query.content[0].text }));
await client.close();
