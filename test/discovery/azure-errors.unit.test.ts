// How an error of the Azure SDK's pipeline (a RestError, as Resource Manager's clients and the blob
// service's client throw it) becomes a scan error code: refusals, throttling, the rest.
import { RestError } from '@azure/core-rest-pipeline';
import { classifyAzureError } from '../../src/features/discovery/connectors/azure/azure-errors.js';

describe('the Azure error codes', () => {
  it.each([
    [403, 'AuthorizationFailed', 'AZURE_ACCESS_DENIED'],
    [403, 'AuthorizationPermissionMismatch', 'AZURE_ACCESS_DENIED'],
    [403, 'AuthorizationFailure', 'AZURE_ACCESS_DENIED'],
    [429, 'TooManyRequests', 'AZURE_THROTTLED'],
    [503, 'ServerBusy', 'AZURE_THROTTLED'],
    [503, 'ServiceUnavailable', 'AZURE_API_ERROR'],
    [404, 'ResourceNotFound', 'AZURE_API_ERROR'],
  ])('gives HTTP %i %s the code %s, its detail naming Azure\'s code', (statusCode, code, expected) => {
    const { code: got, detail } = classifyAzureError(new RestError('Azure answered with an error.\nRequestId:0b7c', { code, statusCode }));
    expect(got).toBe(expected);
    expect(detail).toBe(`${code} (HTTP ${statusCode}): Azure answered with an error.`);
  });

  it('gives a refused connection its network code', () => {
    expect(classifyAzureError(new RestError('connect ECONNREFUSED 127.0.0.1:1', { code: 'ECONNREFUSED' })).code).toBe('CONNECTION_REFUSED');
  });
});
