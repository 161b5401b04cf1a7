// A Node service's TypeScript, checked without the DOM library (Node's own tsconfig: `lib` es2023, @types/node):
// the package's types must name no DOM-only type, and retryFetch's input stays typed.
import { Policy, retryFetch } from 'retryplan';

const policy = Policy.profile('checkout');
export const placed = retryFetch('http://127.0.0.1:8080/api/orders', { method: 'POST' }, { policy });
export const fromUrl = retryFetch(new URL('http://127.0.0.1:8080/api/cart'), undefined, { policy });
export const fromRequest = retryFetch(new Request('http://127.0.0.1:8080/api/cart'), null, { policy });
// @ts-expect-error: a number is no request (with a DOM-only type in the declarations, the input was `any`)
export const refused = retryFetch(12345, undefined, { policy });
