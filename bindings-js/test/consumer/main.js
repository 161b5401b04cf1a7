// A tiny page that imports the package by name, bundled by Vite.
import { Operation, Policy, profileNames } from 'retryplan';

const operation = new Operation(Policy.profile('checkout'), 0, { seed: 1, idempotencyKey: 'order-5001' });
window.__result = { profiles: profileNames(), first: operation.poll(50) };
