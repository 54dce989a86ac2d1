/**
 * `POST|PUT /{index}/_shrink/{target}` and `/{index}/_clone/{target}` (ES resize): the engine's
 * ResizeService builds the target from the source's commits.
 */
import { inject, injectable } from 'inversify';
import { EsError, RestResponses, route, type RestHandler, type RestRequest, type RestResponse } from '@strata/core-common';
import { ResizeService, type ResizeType } from '@strata/core-engine';

const ACTIONS: Record<ResizeType, string> = { shrink: 'indices:admin/resize', clone: 'indices:admin/resize' };

@injectable()
export class ResizeIndexRestHandler implements RestHandler {
  readonly name = 'resize_index_action';
  readonly routes = [
    route('POST', '/{index}/_shrink/{target}', ACTIONS.shrink),
    route('PUT', '/{index}/_shrink/{target}', ACTIONS.shrink),
    route('POST', '/{index}/_clone/{target}', ACTIONS.clone),
    route('PUT', '/{index}/_clone/{target}', ACTIONS.clone),
  ];
  readonly params = ['master_timeout', 'timeout', 'wait_for_active_shards'];

  constructor(@inject(ResizeService) private readonly resize: ResizeService) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    const type: ResizeType = req.path.includes('/_clone/') ? 'clone' : 'shrink';
    const body = req.hasBody() ? (req.objectBody(false) ?? {}) : {};
    for (const k of Object.keys(body)) {
      if (k !== 'settings' && k !== 'aliases') throw new EsError('x_content_parse_exception', 400, `[1:2] [resize_request] unknown field [${k}]`);
    }
    const im = await this.resize.resize(type, req.pathParam('index'), req.pathParam('target'), { settings: body['settings'], aliases: body['aliases'] });
    return RestResponses.ok({ acknowledged: true, shards_acknowledged: true, index: im.name });
  }
}
