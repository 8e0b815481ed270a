// The MCP TypeScript SDK as a client of atma's MCP endpoint (streamable HTTP): initialise,
// list the tools, add a memory, query, and print what came back as one JSON line.
// Usage: node mcp_client.mjs SDK_DIR URL TOKEN
import { pathToFileURL } from "node:url";
import path from "node:path";

const [sdkDir, url, token] = process.argv.slice(2);
const load = (p) => import(pathToFileURL(path.join(sdkDir, "node_modules/@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await load("client/index.js");
const { StreamableHTTPClientTransport } = await load("client/streamableHttp.js");

const client = new Client({ name: "atma-test", version: "1.0.0" });
const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});
await client.connect(transport);
const tools = await client.listTools();
const add = await client.callTool({ name: "memory_add", arguments: { content: "I moved to Lisbon last month." } });
const query = await client.callTool({ name: "memory_query", arguments: { query: "Where do I live now?" } });
console.log(JSON.stringify({
  instructions: client.getInstructions(),
  tools: tools.tools.map((t) => t.name),
  addError: add.isError ?? false,
  query: query.content[0].text,
}));
await client.close();
