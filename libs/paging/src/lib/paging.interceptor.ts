import { inject, injectable } from 'inversify';
import type { CoordinatorSearchInterceptor, SearchOptions, SearchRequest, SearchResponse } from '@strata/core-engine';
import { PagingService, type PitSpec } from './paging.service.js';

/** Routes searches carrying `pit` or `?scroll=` through the paging service. */
@injectable()
export class PagingCoordinatorInterceptor implements CoordinatorSearchInterceptor {
  readonly name = 'paging';
  readonly order = 100;
  readonly handles = ['scroll', 'pit'] as const;

  constructor(@inject(PagingService) private readonly paging: PagingService) {}

  intercept(
    request: SearchRequest,
    options: SearchOptions,
    next: (request: SearchRequest, options: SearchOptions) => Promise<SearchResponse>,
  ): Promise<SearchResponse> {
    const pit = request.source.extensions['pit'] as PitSpec | undefined;
    if (pit) return this.paging.searchWithPit(request, pit, options, next);
    if (request.scroll !== undefined) return this.paging.openScroll(request, options, next);
    return next(request, options);
  }
}
