import { EsError } from '@strata/core-common';
import { checkCompatibleVersions } from './media-type.js';

describe('checkCompatibleVersions', () => {
  const v = (n: number): string => `application/vnd.elasticsearch+json; compatible-with=${n}`;

  it('accepts matching versions and headers without a version', () => {
    expect(() => checkCompatibleVersions(v(8), v(8))).not.toThrow();
    expect(() => checkCompatibleVersions(v(7), v(7))).not.toThrow();
    expect(() => checkCompatibleVersions('application/json', v(8))).not.toThrow();
    expect(() => checkCompatibleVersions(undefined, 'application/json')).not.toThrow();
  });

  it('refuses different versions with a media_type_header_exception caused by a status_exception', () => {
    let err: unknown;
    try {
      checkCompatibleVersions(v(7), v(8));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(EsError);
    const body = (err as EsError).toBody();
    expect(body).toEqual({
      status: 400,
      error: {
        root_cause: [{ type: 'media_type_header_exception', reason: 'Invalid media-type value on headers [Content-Type, Accept]' }],
        type: 'media_type_header_exception',
        reason: 'Invalid media-type value on headers [Content-Type, Accept]',
        caused_by: {
          type: 'status_exception',
          reason:
            'A compatible version is required on both Content-Type and Accept headers if either one has requested a ' +
            'compatible version and the compatible versions must match. ' +
            'Accept=application/vnd.elasticsearch+json; compatible-with=7, ' +
            'Content-Type=application/vnd.elasticsearch+json; compatible-with=8',
        },
      },
    });
  });
});
