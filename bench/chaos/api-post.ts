/** One create through the API server's HTTP API, so admission webhooks see it as they see users' requests. */
import { request } from 'node:http';
import type { JsonObject } from '@edict/foundation';

/** POSTs `object` to `path`; resolves with the created object, rejects with the API server's message. */
export function apiPost(apiServerUrl: string, path: string, object: JsonObject): Promise<JsonObject> {
  return new Promise((resolve, reject) => {
    const call = request(
      new URL(path, apiServerUrl),
      { method: 'POST', headers: { 'content-type': 'application/json' }, timeout: 30_000 },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => {
          if (response.statusCode === 201) resolve(JSON.parse(body) as JsonObject);
          else reject(new Error(`POST ${path}: ${response.statusCode} ${body.slice(0, 300)}`));
        });
      },
    );
    call.on('timeout', () => call.destroy(new Error(`POST ${path}: no answer within 30 s`)));
    call.on('error', reject);
    call.end(JSON.stringify(object));
  });
}
