/**
 * Swagger UI at `/docs` and the OpenAPI document at `/docs-json` (and `/docs-yaml`). Set up before
 * the app initialises, so the UI's static assets are registered with Fastify before it starts.
 */
import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';

export const DOCS_PATH = 'docs';

export function setUpSwagger(app: INestApplication): void {
  const config = new DocumentBuilder()
    .setTitle('Edict admission controller')
    .setDescription(
      'Kyverno-compatible admission webhooks, and admin endpoints for debugging: the policies as loaded ' +
        '(autogen rules included), a side-effect-free evaluation with a per-rule trace, leader election, ' +
        'certificates, webhook configurations and queue depths. They are on only with EDICT_ADMIN_ENDPOINTS=true: turn them on to debug, not in production.',
    )
    .addTag('admin', 'Debugging endpoints (read-only, except the side-effect-free evaluate)')
    .build();
  const document = SwaggerModule.createDocument(app, config);
  SwaggerModule.setup(DOCS_PATH, app, document, {
    jsonDocumentUrl: `${DOCS_PATH}-json`,
    yamlDocumentUrl: `${DOCS_PATH}-yaml`,
  });
}
