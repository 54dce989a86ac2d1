import { IsDefined, IsInt, IsOptional, IsString } from 'class-validator';
import { validateBody } from './validate-body.js';

class PipelineBody {
  static readonly NAME = 'pipeline';
  @IsOptional() @IsString() description?: string;
  @IsDefined() processors!: unknown[];
  @IsOptional() @IsInt() version?: number;
}

describe('validateBody', () => {
  it('returns an instance when valid', async () => {
    const b = await validateBody(PipelineBody, { processors: [], version: 2 });
    expect(b).toBeInstanceOf(PipelineBody);
    expect(b.version).toBe(2);
  });
  it('rejects unknown fields with x_content_parse_exception', async () => {
    await expect(validateBody(PipelineBody, { processors: [], foo: 1 })).rejects.toMatchObject({
      type: 'x_content_parse_exception',
      reason: '[1:1] [pipeline] unknown field [foo]',
    });
  });
  it('rejects wrong types with x_content_parse_exception', async () => {
    await expect(validateBody(PipelineBody, { processors: [], version: 'x' })).rejects.toMatchObject({
      type: 'x_content_parse_exception',
      reason: '[1:1] [pipeline] failed to parse field [version]',
    });
  });
  it('rejects missing fields with action_request_validation_exception', async () => {
    await expect(validateBody(PipelineBody, {})).rejects.toMatchObject({
      type: 'action_request_validation_exception',
      status: 400,
      reason: 'Validation Failed: 1: [processors] is missing;',
    });
  });
  it('rejects non-objects', async () => {
    await expect(validateBody(PipelineBody, [1])).rejects.toMatchObject({ type: 'x_content_parse_exception' });
  });
});
