// A minimal MCP server over stdio (newline-delimited JSON-RPC), standing in for a Sophia MCP server
// (`sql-mcp-server`) in the grounded-embedded-skills scenarios: it answers `initialize` (echoing the
// client's protocol version) and the list calls with nothing, and appends one line to the file named
// by its first argument when the host starts it, so the suite knows the host read the settings file
// the server was configured in. Usage: node mcp-stub.mjs MARKER_FILE
import fs from 'node:fs';
import readline from 'node:readline';

const marker = process.argv[2];
if (marker) fs.appendFileSync(marker, `started ${process.pid}\n`);

const empty = {
  'tools/list': { tools: [] },
  'prompts/list': { prompts: [] },
  'resources/list': { resources: [] },
  'resources/templates/list': { resourceTemplates: [] },
  ping: {},
};

const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n');

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  let request;
  try {
    request = JSON.parse(line);
  } catch {
    return;
  }
  if (request.id === undefined || request.id === null) return; // a notification
  if (request.method === 'initialize') {
    send({
      id: request.id,
      result: {
        protocolVersion: request.params?.protocolVersion || '2025-06-18',
        capabilities: { tools: {} },
        serverInfo: { name: 'sql-mcp-server', version: '0.0.0-e2e' },
      },
    });
  } else if (request.method in empty) {
    send({ id: request.id, result: empty[request.method] });
  } else {
    send({ id: request.id, error: { code: -32601, message: `method not found: ${request.method}` } });
  }
});
