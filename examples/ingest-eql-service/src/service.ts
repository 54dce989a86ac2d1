/**
 * An example of reusing Strata's libraries in another service: a Koa app of its own (its routes, its
 * middleware) that mounts only the ingest and EQL feature libraries on top of the core. Requests the
 * app does not answer itself and Strata has a route for go to Strata's HTTP pipeline; everything else
 * falls through to the app (404 here).
 */
import Koa from 'koa';
import { createNode, type NodeOptions, type StrataNode } from '@strata/core-api';
import { HttpPipeline } from '@strata/core-http';
import { ingestFeature } from '@strata/ingest';
import { eqlFeature } from '@strata/eql';

export interface ServiceOptions {
  /** where the embedded node keeps its indices */
  dataPath: string;
  /** more node settings */
  settings?: Record<string, unknown>;
  logger?: NodeOptions['logger'];
}

export interface Service {
  readonly app: Koa;
  readonly node: StrataNode;
  close(): Promise<void>;
}

export async function createService(options: ServiceOptions): Promise<Service> {
  const node = await createNode({
    settings: { 'path.data': options.dataPath, ...(options.settings ?? {}) },
    features: [ingestFeature, eqlFeature],
    ...(options.logger ? { logger: options.logger } : {}),
  });
  await node.start();
  const app = new Koa();
  app.silent = true;

  // the service's own middleware and routes come first
  app.use(async (ctx, next) => {
    ctx.set('X-Service', 'ingest-eql-example');
    await next();
  });
  app.use(async (ctx, next) => {
    if (ctx.method === 'GET' && ctx.path === '/service/info') {
      ctx.body = { service: 'ingest-eql-example', features: ['ingest', 'eql'] };
      return;
    }
    await next();
  });

  // then Strata: its routes answer as Elasticsearch does; unknown paths fall through
  app.use(node.container.get(HttpPipeline).middleware({ fallthrough: true }));

  app.use((ctx) => {
    ctx.status = 404;
    ctx.body = { error: `the example service has no route ${ctx.method} ${ctx.path}` };
  });

  return {
    app,
    node,
    close: () => node.close(),
  };
}
