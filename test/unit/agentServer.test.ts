// The agent's HTTP answer when /metrics fails: a fixed sentence for whoever scrapes, the whole error (with its stack)
// in the agent's log. Served by the real node:http server on 127.0.0.1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../../src/agent/server.ts';

test('a failing /metrics answers 500 without the exception text, and logs it with its stack', async () => {
  const logged: string[] = [];
  const { server, url } = await startServer(
    {
      ready: true,
      metrics: () => {
        throw new TypeError('cannot read /host/proc/4242/fdinfo/7 of secret-pod');
      },
    },
    { host: '127.0.0.1', port: 0 },
    (line) => logged.push(line),
  );
  try {
    const response = await fetch(`${url}/metrics`);
    const body = await response.text();
    assert.equal(response.status, 500);
    assert.equal(body, "metrics failed: an internal error (the agent's log has the details)\n");
    assert.doesNotMatch(body, /secret-pod|fdinfo|TypeError/);
    assert.equal(logged.length, 1);
    assert.match(logged[0] ?? '', /^\/metrics failed: TypeError: cannot read \/host\/proc\/4242\/fdinfo\/7 of secret-pod\n\s+at /);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
