// client.mjs - a real MCP client for the tests: the official TypeScript
// SDK's Client over StdioClientTransport, from tests/npm (make deps).
//
// usage: node client.mjs CALLS COMMAND [ARG...]
// Starts COMMAND ARG... as an MCP server on stdio with this environment,
// connects (initialize), lists its tools, makes each call of CALLS (a JSON
// array of [name, arguments]) and prints one JSON line per step:
//   {"server":{...},"protocolVersion":"..."}
//   {"tools":[{"name","description","inputSchema"},...]}
//   {"call":NAME,"result":{"content":[...],"isError":...}}
// or {"call":NAME,"error":"message"} when the call fails as a request.
const sdk = new URL('../npm/node_modules/@modelcontextprotocol/sdk/dist/esm/',
    import.meta.url);
const { Client } = await import(new URL('client/index.js', sdk));
const { StdioClientTransport } = await import(new URL('client/stdio.js', sdk));

const [calls, command, ...args] = process.argv.slice(2);
const transport = new StdioClientTransport({
	command, args, env: process.env, stderr: 'inherit'
});
const client = new Client({ name: 'oxi-test', version: '1' });
const out = (o) => process.stdout.write(JSON.stringify(o) + '\n');
let version = null;	/* the client hands the transport what was agreed */
transport.setProtocolVersion = (v) => { version = v; };

await client.connect(transport);
out({ server: client.getServerVersion(), protocolVersion: version });
out({ tools: (await client.listTools()).tools });
for (const [name, a] of JSON.parse(calls)) {
	try {
		out({ call: name, result: await client.callTool({ name,
		    arguments: a }) });
	} catch (e) {
		out({ call: name, error: String(e.message ?? e) });
	}
}
await client.close();
