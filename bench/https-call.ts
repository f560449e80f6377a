/** One HTTPS call to a benchmark server, trusting only the controller's CA and checking the Service's name. */
import { request as httpsRequest } from 'node:https';
import { BENCH_SERVER_NAME } from './webhook-servers';

export interface Answer {
  status: number;
  body: string;
}

/** GET `path`, or POST `payload` as JSON. */
export function httpsCall(port: number, ca: string, path: string, payload?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpsRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method: payload === undefined ? 'GET' : 'POST',
        ca,
        servername: BENCH_SERVER_NAME,
        agent: false,
        headers: payload === undefined ? {} : { 'content-type': 'application/json' },
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}
