import { GatewayError } from '@cg/contract';
import { PlatformError } from '@cg/platform-client';

/** The platform's 403 ("action not allowed"): the call is refused, whatever is asked again. */
export function isRefusal(error: unknown): error is PlatformError {
  return error instanceof PlatformError && error.kind === 'forbidden';
}

/**
 * Runs one platform call and names the platform's 403 ("action not allowed") for the caller. The
 * worker's generic FORBIDDEN_ACTION message cannot say which rule was hit; the operation knows, as its
 * call can be refused for one reason only (a standard album, the default tracking link; CONFLICT
 * where the refusal is the object's state: a sent message, a rule that exists).
 */
export async function refusedAs<T>(
  message: string,
  call: () => Promise<T>,
  code: 'FORBIDDEN_ACTION' | 'CONFLICT' = 'FORBIDDEN_ACTION',
): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (isRefusal(error)) {
      throw new GatewayError(code, message);
    }
    throw error;
  }
}
