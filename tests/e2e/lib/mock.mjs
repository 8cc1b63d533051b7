// Mock model servers for the end-to-end suite: one HTTP server on 127.0.0.1 that speaks the model API a
// host expects (OpenAI Responses with SSE for Codex, Anthropic Messages with SSE for Claude Code, the
// Gemini API `streamGenerateContent` for Gemini CLI), logs every request body as one JSON line, and
// answers with a short text reply or with a scripted tool call.
//
// No npm dependencies: node's own `http` only.

import http from 'node:http';
import fs from 'node:fs';

export const DEFAULT_REPLY = 'ok from the e2e mock model';

/**
 * A reply is `{ text }` or `{ toolCall: { name, args, item? } }` (args: a plain object; `item`: extra
 * fields merged into the Responses API `function_call` item, e.g. for namespaced tools).
 *
 * `script(request, turn)` picks the reply for a conversation request. `request` is
 * `{ method, path, body }` (body parsed JSON) and `turn` counts the conversation requests answered so
 * far (0 for the first). Returning nothing means the default text reply. Hosts also make side requests
 * (titles, token counts, model routing…); those are logged but never reach the script.
 */
export async function startMock({ api, logFile, script }) {
  let turn = 0;
  let seq = 0;
  const server = http.createServer((req, res) => {
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size <= 64 * 1024 * 1024) chunks.push(c);
    });
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body = null;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {
        body = { unparsed: raw.slice(0, 10000) };
      }
      const entry = { seq: seq++, method: req.method, path: req.url, body };
      const handler = API[api];
      let kind = 'side';
      try {
        kind = handler.classify(entry);
        entry.kind = kind;
        fs.appendFileSync(logFile, JSON.stringify(entry) + '\n');
        const reply = kind === 'turn' ? (script && script(entry, turn++)) || { text: DEFAULT_REPLY } : null;
        handler.answer(entry, reply, res);
      } catch (err) {
        fs.appendFileSync(logFile, JSON.stringify({ seq: entry.seq, mockError: String(err && err.stack) }) + '\n');
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'mock error' } }));
      }
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address();
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

/** Every logged request, in order. */
export function readLog(logFile) {
  if (!fs.existsSync(logFile)) return [];
  return fs
    .readFileSync(logFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

function sse(res, events) {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  for (const [event, data] of events) {
    if (event) res.write(`event: ${event}\n`);
    res.write(`data: ${JSON.stringify(data)}\n\n`);
  }
  res.end();
}

function json(res, status, value) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

const API = {
  // OpenAI Responses API (Codex: wire_api = "responses").
  responses: {
    // Codex's own side calls (the TUI's thread title) carry no tools.
    classify: (e) =>
      e.method === 'POST' && /\/responses(\?|$)/.test(e.path) && Array.isArray(e.body?.tools) && e.body.tools.length > 0 ? 'turn' : 'side',
    answer(e, reply, res) {
      if (!reply) {
        if (/\/models/.test(e.path)) return json(res, 200, { object: 'list', data: [], models: [] });
        return json(res, 404, { error: { message: 'not mocked' } });
      }
      const id = `resp_mock_${e.seq}`;
      const item = reply.toolCall
        ? {
            type: 'function_call',
            id: `fc_mock_${e.seq}`,
            call_id: `call_mock_${e.seq}`,
            name: reply.toolCall.name,
            arguments: JSON.stringify(reply.toolCall.args || {}),
            status: 'completed',
            ...(reply.toolCall.item || {}),
          }
        : {
            type: 'message',
            id: `msg_mock_${e.seq}`,
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text: reply.text, annotations: [] }],
          };
      const usage = {
        input_tokens: 10,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: 5,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 15,
      };
      const events = [
        ['response.created', { type: 'response.created', response: { id, status: 'in_progress', output: [] } }],
        ['response.output_item.added', { type: 'response.output_item.added', output_index: 0, item }],
      ];
      if (!reply.toolCall) {
        events.push([
          'response.output_text.delta',
          { type: 'response.output_text.delta', item_id: item.id, output_index: 0, content_index: 0, delta: reply.text },
        ]);
      }
      events.push(
        ['response.output_item.done', { type: 'response.output_item.done', output_index: 0, item }],
        [
          'response.completed',
          { type: 'response.completed', response: { id, status: 'completed', output: [item], usage } },
        ],
      );
      sse(res, events);
    },
  },

  // Anthropic Messages API (Claude Code: ANTHROPIC_BASE_URL).
  messages: {
    classify(e) {
      if (e.method !== 'POST' || !/\/v1\/messages(\?|$)/.test(e.path)) return 'side';
      // Claude Code's own side calls (session titles, quota probes) carry no tools.
      return Array.isArray(e.body?.tools) && e.body.tools.length > 0 ? 'turn' : 'side';
    },
    answer(e, reply, res) {
      if (/count_tokens/.test(e.path)) return json(res, 200, { input_tokens: 10 });
      if (e.method !== 'POST' || !/\/v1\/messages/.test(e.path)) return json(res, 404, { error: { type: 'not_found_error', message: 'not mocked' } });
      reply = reply || { text: DEFAULT_REPLY };
      const id = `msg_mock_${e.seq}`;
      const model = e.body?.model || 'mock';
      const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
      if (e.body?.stream === false || e.body?.stream === undefined) {
        const content = reply.toolCall
          ? [{ type: 'tool_use', id: `toolu_mock_${e.seq}`, name: reply.toolCall.name, input: reply.toolCall.args || {} }]
          : [{ type: 'text', text: reply.text }];
        return json(res, 200, {
          id,
          type: 'message',
          role: 'assistant',
          model,
          content,
          stop_reason: reply.toolCall ? 'tool_use' : 'end_turn',
          stop_sequence: null,
          usage,
        });
      }
      const events = [
        [
          'message_start',
          {
            type: 'message_start',
            message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage },
          },
        ],
      ];
      if (reply.toolCall) {
        events.push(
          [
            'content_block_start',
            {
              type: 'content_block_start',
              index: 0,
              content_block: { type: 'tool_use', id: `toolu_mock_${e.seq}`, name: reply.toolCall.name, input: {} },
            },
          ],
          [
            'content_block_delta',
            {
              type: 'content_block_delta',
              index: 0,
              delta: { type: 'input_json_delta', partial_json: JSON.stringify(reply.toolCall.args || {}) },
            },
          ],
        );
      } else {
        events.push(
          ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
          ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: reply.text } }],
        );
      }
      events.push(
        ['content_block_stop', { type: 'content_block_stop', index: 0 }],
        [
          'message_delta',
          {
            type: 'message_delta',
            delta: { stop_reason: reply.toolCall ? 'tool_use' : 'end_turn', stop_sequence: null },
            usage: { output_tokens: 5 },
          },
        ],
        ['message_stop', { type: 'message_stop' }],
      );
      sse(res, events);
    },
  },

  // Gemini API (Gemini CLI: GOOGLE_GEMINI_BASE_URL).
  gemini: {
    classify(e) {
      if (e.method !== 'POST' || !/:streamGenerateContent/.test(e.path)) return 'side';
      // The conversation carries the tool declarations; Gemini CLI's helper calls (routing, checks) do not.
      return Array.isArray(e.body?.tools) && e.body.tools.length > 0 ? 'turn' : 'side';
    },
    answer(e, reply, res) {
      if (/:countTokens/.test(e.path)) return json(res, 200, { totalTokens: 10 });
      if (e.method !== 'POST' || !/:(stream)?[gG]enerateContent/.test(e.path)) return json(res, 404, { error: { code: 404, message: 'not mocked', status: 'NOT_FOUND' } });
      reply = reply || sideReplyGemini(e);
      const part = reply.toolCall
        ? { functionCall: { name: reply.toolCall.name, args: reply.toolCall.args || {} } }
        : { text: reply.text };
      const chunk = {
        candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
        usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
        modelVersion: 'mock',
      };
      if (/:streamGenerateContent/.test(e.path)) return sse(res, [[null, chunk]]);
      json(res, 200, chunk);
    },
  },
};

// Gemini CLI's helper calls ask for JSON (model routing, next-speaker checks): answer with a JSON object
// that says "the user speaks next" and "use the default model", and plain text otherwise.
function sideReplyGemini(e) {
  const cfg = e.body?.generationConfig || {};
  if (cfg.responseMimeType === 'application/json' || cfg.responseJsonSchema || cfg.responseSchema) {
    return {
      text: JSON.stringify({ next_speaker: 'user', reasoning: 'mock', model_choice: 'flash', complexity_reasoning: 'mock', complexity_score: 10 }),
    };
  }
  return { text: DEFAULT_REPLY };
}

// Stand-alone: `node tests/e2e/lib/mock.mjs <responses|messages|gemini> <log file>` prints the URL and
// serves until killed (for poking at a host by hand).
if (import.meta.url === `file://${process.argv[1]}`) {
  const [api, logFile] = process.argv.slice(2);
  if (!API[api] || !logFile) {
    console.error('usage: mock.mjs <responses|messages|gemini> <log file>');
    process.exit(2);
  }
  const m = await startMock({ api, logFile });
  console.log(m.url);
}
