import type { OpenAPIDocument } from './openapi';

/** A small document shaped like the service's /api/v1/openapi.json. */
export const sampleDoc: OpenAPIDocument = {
  openapi: '3.1.0',
  info: { title: 'Switchboard API', version: '1' },
  tags: [
    { name: 'Models', description: 'Models the workspace can use.' },
    { name: 'Webhooks', description: 'Webhook endpoints.' },
  ],
  security: [{ bearerAuth: [] }],
  paths: {
    '/api/v1/models': {
      get: {
        operationId: 'listModels',
        summary: 'List models',
        tags: ['Models'],
        parameters: [{ $ref: '#/components/parameters/Limit' } as never],
        responses: {
          '401': { $ref: '#/components/responses/Unauthorized' },
          '200': {
            description: 'The models',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/ModelList' } } },
          },
        },
      },
    },
    '/api/v1/webhooks/{id}': {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'Webhook id' }],
      patch: {
        operationId: 'updateWebhook',
        summary: 'Update a webhook',
        tags: ['Webhooks'],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['url'],
                properties: {
                  url: { type: 'string', format: 'uri', description: 'Where to POST events' },
                  event_types: { type: 'array', items: { type: 'string' } },
                },
              },
              example: { url: 'https://example.com/hook', event_types: ['*'] },
            },
          },
        },
        responses: { '200': { description: 'Updated', content: { 'application/json': { schema: { $ref: '#/components/schemas/Webhook' } } } } },
      },
    },
    '/api/v1/openapi.json': {
      get: { operationId: 'getOpenAPI', summary: 'This document', tags: ['Meta'], security: [], responses: { '200': { description: 'OK' } } },
    },
  },
  components: {
    parameters: {
      Limit: { name: 'limit', in: 'query', required: false, description: '1..100', schema: { type: 'integer', minimum: 1, maximum: 100 } },
    },
    responses: {
      Unauthorized: { description: 'Missing or invalid key', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
    },
    schemas: {
      Model: {
        type: 'object',
        required: ['id', 'object', 'created', 'owned_by'],
        properties: {
          id: { type: 'string', example: 'gpt-4o-mini' },
          object: { type: 'string', const: 'model' },
          created: { type: 'integer', example: 1700000000 },
          owned_by: { type: 'string', example: 'switchboard' },
        },
      },
      ModelList: {
        type: 'object',
        required: ['object', 'data'],
        properties: { object: { type: 'string', const: 'list' }, data: { type: 'array', items: { $ref: '#/components/schemas/Model' } } },
      },
      Webhook: { type: 'object', properties: { id: { type: 'string' }, url: { type: 'string' } } },
      Error: {
        type: 'object',
        properties: {
          error: {
            type: 'object',
            properties: { message: { type: 'string' }, type: { type: 'string' }, code: { type: ['string', 'null'] } },
          },
        },
      },
    },
  },
};
